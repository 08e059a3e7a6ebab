-- Fixed work for bench/overhead.sh: arg[1] rounds of Lua (JIT-compiled loops,
-- table work) and C (string functions), then the process's CPU seconds
-- (os.clock) written to the file arg[2].
local rounds = tonumber(arg[1]) or 100
local words = {}
for i = 1, 100 do words[i] = "w" .. i end
local sink = 0
for _ = 1, rounds do
  local t = {}
  for i = 1, 20000 do t[i] = (i * 7919) % 1000 end
  for i = 1, #t do sink = (sink + t[i] * 3) % 1000003 end
  local s = table.concat(words, ",")
  for _ = 1, 20 do
    s = s:gsub("w(%d+)", "%1"):upper():lower()
    sink = sink + #string.format("%s:%d", s:sub(1, 5), sink)
  end
end
local f = assert(io.open(arg[2], "w"))
f:write(string.format("%.6f\n", os.clock()))
f:close()
io.write(sink >= 0 and "" or "?")
