-- A program whose hot function changes halfway: for arg[1] seconds of CPU time
-- it spends 4/5 of its time in before_hot and 1/5 in steady, then touches the
-- file arg[2] and spends 4/5 in after_hot and 1/5 in steady for arg[3] seconds.
--   luajit shift.lua FIRST MARKER SECOND
local first, marker, second = tonumber(arg[1]) or 5, arg[2], tonumber(arg[3]) or 60

local function spin(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

function before_hot() return spin(400000) + 0 end
function after_hot() return spin(400000) + 0 end
function steady() return spin(100000) + 0 end

local sink, t0 = 0, os.clock()
while os.clock() - t0 < first do
  sink = sink + before_hot() + steady()
end
if marker then
  local f = io.open(marker, "w")
  if f then f:close() end
end
t0 = os.clock()
while os.clock() - t0 < second do
  sink = sink + after_hot() + steady()
end
print(sink)
