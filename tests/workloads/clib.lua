-- LuaJIT workload that spends its time in C library code: string.rep,
-- table.concat, string.format and io writes to /dev/null. Runs arg[1] seconds.
local deadline = os.clock() + (tonumber(arg and arg[1]) or 60)
local out = assert(io.open("/dev/null", "w"))
local parts, i = {}, 0
while i % 1000 ~= 0 or os.clock() < deadline do
  i = i + 1
  local s = string.rep("luatop", 200)
  parts[#parts + 1] = string.format("%d:%s:%.3f", i, s:sub(1, 8), i * 1.5)
  if #parts >= 500 then
    out:write(table.concat(parts, ","), "\n")
    parts = {}
  end
end
out:close()
