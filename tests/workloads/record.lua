-- LuaJIT workload for t_lua_cpcall.sh: most of its time in the JIT's trace
-- recorder and assembler, which lj_trace_ins runs through lj_vm_cpcall (a C
-- function without a Lua frame) from the interpreter running work: every round
-- flushes the traces, so work's loop gets hot, is recorded and compiled again.
-- Runs arg[1] seconds.
local secs = tonumber(arg[1]) or 30

local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local deadline, sink = os.clock() + secs, 0
while os.clock() < deadline do
  jit.flush()
  sink = sink + work(300)
end
io.write(sink >= 0 and "" or "?")
