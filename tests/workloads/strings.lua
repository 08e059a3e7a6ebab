-- String-heavy LuaJIT workload (gsub, format, find, concat) for t_native_funcs.sh:
-- its time goes to the C code of the string library. Runs arg[1] seconds.
local secs = tonumber(arg[1]) or 30
local deadline = os.clock() + secs
local words = {}
for i = 1, 200 do words[i] = string.format("w%03d", i) end
local text = table.concat(words, " ")
local sink = 0
while os.clock() < deadline do
  for _ = 1, 50 do
    local r = text:gsub("w(%d+)", "<%1>")
    sink = sink + #r
    local s = string.format("%s:%d:%5.2f", r:sub(1, 10), sink, sink / 7)
    sink = sink + (s:find("%d+", 1) or 0)
    sink = sink + #table.concat(words, ",", 1, 100)
  end
end
io.write(sink >= 0 and "" or "?")
