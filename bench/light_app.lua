-- The content handler of bench/offcpu.sh: a light request (tens of
-- microseconds of Lua), so that a worker under wrk makes many system calls and
-- context switches per second: the load off-CPU tracing costs most on.
local M = {}

local function digest(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967291 end
  return h
end

function M.handler()
  local parts = {}
  for i = 1, 20 do parts[i] = tostring(i * 7) end
  local body = table.concat(parts, ",")
  ngx.say(digest(body), " ", #body)
end

return M
