-- LuaJIT workload for t_tui_mixed.sh: one call path, step -> work, that runs
-- JIT-compiled and interpreted by turns (the JIT is switched off and on, and the
-- traces flushed, every 0.2 s). Runs arg[1] seconds.
local secs = tonumber(arg[1]) or 60

local function work(n)
  local s = 0
  for i = 1, n do s = (s + i * 13) % 1000003 end
  return s
end

local function step()
  return work(20000) + 1
end

local deadline = os.clock() + secs
local sink, jit_on, switch = 0, true, os.clock() + 0.2
while os.clock() < deadline do
  sink = sink + step()
  if os.clock() >= switch then
    jit_on = not jit_on
    if jit_on then jit.on() else jit.off(); jit.flush() end
    switch = os.clock() + 0.2
  end
end
io.write(sink >= 0 and "" or "?")
