-- The lines of a hot loop body hold one, two, three and four statements of one
-- shape: read a table element, write another (a bounds guard, a type guard and a
-- store each, so a snapshot falls on every line). The interpreter (-joff) and
-- the JIT trace both spend time on the lines about 1:2:3:4.
--   luajit lines.lua SECONDS [ITERATIONS]
local band = bit.band
local secs = tonumber(arg and arg[1]) or 60
local N = tonumber(arg and arg[2]) or 1000000

local t = {}
for i = 1, 1024 do t[i] = i end

local function body(n)
  for i = 1, n do
    t[band(i, 255) + 1] = t[band(i + 1, 255) + 257] + 1
    t[band(i + 2, 255) + 1] = t[band(i + 3, 255) + 257] + 1; t[band(i + 4, 255) + 513] = t[band(i + 5, 255) + 769] + 1
    t[band(i + 6, 255) + 1] = t[band(i + 7, 255) + 257] + 1; t[band(i + 8, 255) + 513] = t[band(i + 9, 255) + 769] + 1; t[band(i + 10, 255) + 1] = t[band(i + 11, 255) + 257] + 1
    t[band(i + 12, 255) + 1] = t[band(i + 13, 255) + 257] + 1; t[band(i + 14, 255) + 513] = t[band(i + 15, 255) + 769] + 1; t[band(i + 16, 255) + 1] = t[band(i + 17, 255) + 257] + 1; t[band(i + 18, 255) + 513] = t[band(i + 19, 255) + 769] + 1
  end
end

local deadline = os.clock() + secs
while os.clock() < deadline do
  body(N)
end
