-- A CPU-bound LuaJIT script for the root-reaching test: JIT-compiled arithmetic,
-- a function kept in the interpreter (jit.off), allocation (GC), string library
-- calls and a sort with a Lua comparator. Runs arg[1] seconds of CPU time.
local secs = tonumber(arg and arg[1]) or 60

local function traced(n)
  local s = 0
  for i = 1, n do s = (s + i * 3) % 65521 end
  return s
end

local function interpreted(n)
  local s = 0
  for i = 1, n do s = (s + i * 5) % 65519 end
  return s
end
if jit then jit.off(interpreted) end

local function allocate(n)
  local t = {}
  for i = 1, n do t[i] = { i, tostring(i) } end
  return #t
end

local function strings(n)
  local s = string.rep("luatop ", n)
  return #s:upper():gsub("T", "t")
end

local function sorting(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % n end
  table.sort(t, function(a, b) return a > b end)
  return t[1]
end

local sink = 0
local deadline = os.clock() + secs
while os.clock() < deadline do
  sink = sink + traced(2000000) + interpreted(300000) + allocate(20000)
    + strings(20000) + sorting(20000)
end
io.write(sink >= 0 and "" or "?")
