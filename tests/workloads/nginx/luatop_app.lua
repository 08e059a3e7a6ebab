-- The content handler of t_lua_nginx.sh (content_by_lua_block calls
-- require("luatop_app").handler()): handler -> render -> checksum, a few
-- milliseconds of CPU per request, nearly all of it in checksum under render.
local M = {}

local function checksum(s, rounds)
  local h = 0
  for r = 1, rounds do
    for i = 1, #s do h = (h * 31 + s:byte(i) + r) % 4294967291 end
  end
  return h
end

function M.render(n)
  local parts = {}
  for i = 1, n do parts[i] = string.format("<li>%d</li>", i) end
  local body = table.concat(parts)
  return body, checksum(body, 100)
end

function M.handler()
  local body, sum = M.render(200)
  ngx.say(#body, " ", sum)
end

return M
