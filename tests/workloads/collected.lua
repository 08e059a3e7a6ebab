-- Code that is loaded, run and collected, round after round: each round loads
-- a chunk of its own ("=hotN"), runs it for 0.25 s of CPU, drops it, collects
-- it (its prototype and chunk name are freed; the next round's are often put
-- at the same addresses) and sleeps, so that luatop reads the round's last
-- samples after the prototype they name has died.
--   luajit collected.lua ROUNDS SLEEP_SECONDS
local ffi = require("ffi")
ffi.cdef "int usleep(unsigned int usec);"
local rounds = tonumber(arg and arg[1]) or 4
local nap = tonumber(arg and arg[2]) or 0.6

for r = 1, rounds do
  local f = assert(loadstring([[
    local t0, n = os.clock(), 0
    while os.clock() - t0 < 0.25 do n = n + #(("ab"):rep(50):upper()) end
    return n]], "=hot" .. r))
  f()
  f = nil
  collectgarbage()
  collectgarbage()
  ffi.C.usleep(nap * 1e6)
end
