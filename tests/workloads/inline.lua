-- A hot loop calls two small leaf functions with identical bodies (table reads
-- and writes, so guards and snapshots fall inside them), once and three times
-- per iteration, each call on other elements (nothing of one call's work can be
-- shared with another's): the JIT inlines both into the loop's trace, whose
-- machine code is leaf_a:leaf_b = 1:3 by construction, as is the interpreter's
-- time (-joff).
--   luajit inline.lua SECONDS [ITERATIONS]
local secs = tonumber(arg and arg[1]) or 60
local N = tonumber(arg and arg[2]) or 1000000

local t = {}
for i = 1, 256 do t[i] = i end

local function leaf_a(x)
  local i = x % 251 + 1
  local v = t[i] + t[i + 1]
  t[i + 2] = v % 1000
  return t[i + 3]
end

local function leaf_b(x)
  local i = x % 251 + 1
  local v = t[i] + t[i + 1]
  t[i + 2] = v % 1000
  return t[i + 3]
end

local function loop(n)
  local s = 0
  for i = 1, n do
    s = s + leaf_a(i) + leaf_b(i + 61) + leaf_b(i + 122) + leaf_b(i + 183)
  end
  return s
end

local sink = 0
local deadline = os.clock() + secs
while os.clock() < deadline do
  sink = sink + loop(N)
end
io.write(sink > 0 and "" or "x")
