-- LuaJIT workload for t_lua_tailcall.sh: local functions reached by tail calls
-- (return f(x)), by a C caller (table.sort's comparator) and through an alias.
-- Under a call-site rule they would be named after their caller's call site
-- ("handle") or chunk:line; by definition site they are checksum, compare, work.
local secs = tonumber(arg[1]) or 30

local function checksum(n)
  local s = 0
  for i = 1, n do s = (s + i * 31) % 1000003 end
  return s
end

local function handle(n)
  return checksum(n)          -- a tail call: handle's frame is gone
end

local function compare(a, b)
  local s = 0
  for i = 1, 200 do s = s + i end
  return a < b
end

local function work(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % n end
  table.sort(t, compare)      -- compare is called from C: no call site
  return t[1]
end
local alias = work

local deadline = os.clock() + secs
local sink = 0
while os.clock() < deadline do
  sink = sink + handle(200000) + alias(300)
end
io.write(sink >= 0 and "" or "?")
