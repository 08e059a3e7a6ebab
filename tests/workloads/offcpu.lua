-- LuaJIT workload for t_offcpu.sh: a thread whose time splits in a known way
-- between the CPU and two ways of blocking. Per iteration, handler() burns
-- BURN_MS of CPU time (burn), sleeps NAP_MS through the FFI (nap -> usleep),
-- and reads one line from a pipe that a feeder process writes every PERIOD_MS
-- (wait_pipe), so that read blocks for about PERIOD - BURN - NAP ms.
-- It measures what it did itself: after each iteration it rewrites arg[2]
-- with its totals so far (seconds of wall time, CPU time, and wall time in
-- burn, nap and wait_pipe). Runs arg[1] seconds.
local ffi = require("ffi")
ffi.cdef[[
int usleep(unsigned int usec);
struct lt_timespec { long sec, nsec; };
int clock_gettime(int clk, struct lt_timespec *ts);
]]
local BURN_MS, NAP_MS, PERIOD_MS = 20, 30, 100
local secs, stats = tonumber(arg[1]) or 30, arg[2]	-- no stats file: none written
local ts = ffi.new("struct lt_timespec")

local function now()
  ffi.C.clock_gettime(1, ts)	-- CLOCK_MONOTONIC
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end

-- The feeder: the same luajit, writing a line every PERIOD_MS on a fixed grid.
local feeder = string.format("local ffi = require('ffi') " ..
  "ffi.cdef('int usleep(unsigned int usec);') " ..
  "local t0 = os.time() " ..
  "while os.time() - t0 < %d do io.write('x\\n') io.flush() ffi.C.usleep(%d) end",
  secs + 2, PERIOD_MS * 1000)
local first = -1	-- arg[first] is the interpreter (arg[-1] may be an option: -joff)
while arg[first - 1] do first = first - 1 end
local pipe = assert(io.popen(string.format('%s -e "%s"', arg[first], feeder), "r"))

local total = { burn = 0, nap = 0, pipe = 0 }

local function burn()
  local t0, t, x = now(), os.clock(), 0
  while os.clock() - t < BURN_MS / 1000 do
    for i = 1, 1000 do x = x + i % 7 end
  end
  total.burn = total.burn + now() - t0
  return x
end

local function nap()
  local t = now()
  ffi.C.usleep(NAP_MS * 1000)
  total.nap = total.nap + now() - t
end

local function wait_pipe()
  local t = now()
  local line = pipe:read("*l")
  total.pipe = total.pipe + now() - t
  return line
end

local function handler()
  burn()
  nap()
  wait_pipe()
end

wait_pipe()	-- in step with the feeder
local start, cpu0 = now(), os.clock()
while now() - start < secs do
  handler()
  -- Written aside and renamed: a reader (or a kill) never meets a truncated file.
  local f = stats and io.open(stats .. ".new", "w")
  if f then
    f:write(string.format("wall %.4f cpu %.4f burn %.4f nap %.4f pipe %.4f\n",
      now() - start, os.clock() - cpu0, total.burn, total.nap, total.pipe))
    f:close()
    os.rename(stats .. ".new", stats)
  end
end
