-- Three global functions burning CPU in a known 5:3:2 ratio: each runs the same
-- loop body, five 5N times per round, three 3N, two 2N. A dispatcher calls them
-- (so the JIT compiles each loop as a trace of its own and inlines none into
-- another); one round is tens of milliseconds, long against any sampling period.
--   luajit split.lua SECONDS [N]      runs SECONDS of CPU time (default 60)
local secs = tonumber(arg and arg[1]) or 60
local N = tonumber(arg and arg[2]) or 500000

function five(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

function three(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

function two(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

local sink = 0
local deadline = os.clock() + secs
while os.clock() < deadline do
  sink = sink + five(5 * N) + three(3 * N) + two(2 * N)
end
io.write(sink >= 0 and "" or "?")
