-- A hot loop that flushes every JIT trace again and again (jit.flush() after
-- each short run of calls): traces are compiled, run, freed, and their numbers
-- and memory reused, while luatop samples them.
--   luajit flush.lua SECONDS
local secs = tonumber(arg and arg[1]) or 60

local t = {}
for i = 1, 256 do t[i] = i end

local function leaf(x)
  local i = x % 251 + 1
  t[i + 2] = t[i] + t[i + 1]
  return t[i + 3]
end

local function run(n)
  local s = 0
  for i = 1, n do
    s = s + leaf(i) + leaf(i + 97)
  end
  return s
end

local sink = 0
local deadline = os.clock() + secs
while os.clock() < deadline do
  sink = sink + run(20000)
  jit.flush()
end
io.write(sink > 0 and "" or "x")
