-- Fixed work for bench/overhead.sh that stays in user space: arg[1] rounds of
-- JIT-compiled loops, small tables and string functions, none large enough for
-- LuaJIT's allocator to map and unmap memory (bench/fixed.lua's 20000-slot
-- table does, every round, and spends ~40% of its time in page faults, where
-- a profiler that records kernel stacks pays the kernel's unwinder). Then the
-- process's CPU seconds (os.clock) written to the file arg[2].
local rounds = tonumber(arg[1]) or 100
local sink = 0
local words = {}
for i = 1, 50 do words[i] = "w" .. i end
local function mix(a, b) return (a * 31 + b) % 1000003 end
for _ = 1, rounds do
  local t = {}
  for i = 1, 200 do t[i] = (i * 7919) % 1000 end
  for _ = 1, 100 do
    for i = 1, #t do sink = mix(sink, t[i]) end
  end
  local s = table.concat(words, ",")
  for _ = 1, 4 do
    s = s:gsub("w(%d+)", "%1"):upper():lower()
    sink = sink + #string.format("%s:%d", s:sub(1, 5), sink)
  end
end
local f = assert(io.open(arg[2], "w"))
f:write(string.format("%.6f\n", os.clock()))
f:close()
io.write(sink >= 0 and "" or "?")
