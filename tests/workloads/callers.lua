-- One function, leaf, called from two places in a known 3:1 ratio: from_a asks
-- it for 3N iterations, from_b for N, in turn. The callers/callees view of leaf
-- must show both callers, with 75% and 25% of leaf's time.
--   luajit callers.lua SECONDS [N]      runs SECONDS of CPU time (default 60)
local secs = tonumber(arg and arg[1]) or 60
local N = tonumber(arg and arg[2]) or 300000

function leaf(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

-- Not tail calls: from_a and from_b stay on the stack under leaf.
function from_a()
  local s = leaf(3 * N)
  return s
end

function from_b()
  local s = leaf(N)
  return s
end

local sink = 0
local deadline = os.clock() + secs
while os.clock() < deadline do
  sink = sink + from_a() + from_b()
end
print(sink)
