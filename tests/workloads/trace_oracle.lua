-- Ground truth for the snapshot decoder (tests/unit/test_trace.c), from LuaJIT
-- itself: jit.util gives each trace's machine code, exit stubs, snapshot entries
-- and constants; the FFI reads what jit.util does not give (the pc a snapshot
-- resumes at, in its map after the entries). Compiles a few traces (inlined
-- calls two deep, a loop over lines, a call through many closures of one
-- prototype), writes what they hold to OUT, then waits until the file DONE
-- exists (the traces stay alive meanwhile).
--   luajit trace_oracle.lua OUT DONE OFF_JIT_TRACE
local ffi = require("ffi")
local bit = require("bit")
local jutil = require("jit.util")
local out_path, done_path, off_jit_trace = arg[1], arg[2], tonumber(arg[3])

ffi.cdef [[
int usleep(unsigned usec);
union lt_bits { double d; uint64_t u; };
]]

-- -- The program whose traces are checked --------------------------------------
local t = {}
for i = 1, 512 do t[i] = i end

local function inner(x)
  local i = x % 251 + 1
  t[i + 2] = t[i] + t[i + 1]
  return t[i + 3]
end

local function mid(x)
  local v = inner(x) + inner(x + 100)
  t[x % 7 + 300] = v
  return v
end

local function outer(n)
  local s = 0
  for i = 1, n do
    s = s + mid(i) + inner(i + 40)
  end
  return s
end

local function lines(n)
  local band = bit.band
  for i = 1, n do
    t[band(i, 255) + 1] = t[band(i + 1, 255) + 257] + 1
    t[band(i + 2, 255) + 1] = t[band(i + 3, 255) + 257] + 1
    t[band(i + 4, 255) + 1] = t[band(i + 5, 255) + 257] + 1
  end
end

local closures = {}
for k = 1, 200 do
  closures[k] = function(x) t[x % 13 + 450] = x + k; return k end
end
local function poly(n)
  local s = 0
  for i = 1, n do
    s = s + closures[i % 200 + 1](i)
  end
  return s
end

for _ = 1, 20 do
  outer(10000)
  lines(10000)
  poly(10000)
end

-- -- What the traces hold ------------------------------------------------------
local bits = ffi.new("union lt_bits")
local function u64(x) bits.d = x; return bits.u end
local function hex(x) return string.format("0x%x", tonumber(x)) end
local function addr(obj) return tonumber(string.format("%p", obj):sub(3), 16) end
local function rd64(a) return ffi.cast("uint64_t *", a)[0] end
local function rd32(a) return ffi.cast("uint32_t *", a)[0] end

local G = rd64(addr(coroutine.create(print)) + 16)	-- lua_State.glref
local out = assert(io.open(out_path, "w"))
out:write("G ", hex(G), "\n")

-- Where a trace's head ends: its store of its number into vmstate, mov dword
-- [r14 + disp32], traceno. A side trace's head checks the stack first and exits
-- through its parent's stubs then (vmstate still holds the parent's number).
local function head_end(tr, mc)
  local imm = string.char(tr % 256, math.floor(tr / 256) % 256, 0, 0)
  for p = 1, #mc - 10 do
    if mc:sub(p, p + 2) == "\x41\xc7\x86" and mc:sub(p + 7, p + 10) == imm then
      return p + 10
    end
  end
  return 0
end

-- The x86 guards of a trace that jump to an exit stub: jcc rel32, jmp rel32.
local function guards(tr, mc, base, nexit, stubs)
  local found = {}
  for p = head_end(tr, mc) + 1, #mc - 4 do
    local b1, b2 = mc:byte(p), mc:byte(p + 1)
    local len = (b1 == 0x0f and b2 >= 0x80 and b2 <= 0x8f) and 6 or (b1 == 0xe9 and 5) or nil
    if len and p + len - 1 <= #mc then
      local r0, r1, r2, r3 = mc:byte(p + len - 4, p + len - 1)
      local rel = r0 + r1 * 256 + r2 * 65536 + r3 * 16777216
      if rel >= 2^31 then rel = rel - 2^32 end
      local target = base + p - 1 + len + rel
      for k = 0, nexit - 1 do
        if stubs[k] == target then found[#found + 1] = { base + p - 1, k } end
      end
    end
  end
  return found
end

-- The inlined frames of snapshot k: outermost first, each { fn, its pc }.
local function frames_of(tr, k, pc)
  local snap = jutil.tracesnap(tr, k)
  local byslot = {}
  for n = 2, #snap - 1 do
    local e = snap[n]
    byslot[bit.rshift(e, 24)] = e
  end
  local fs = {}
  for s = 3, 255 do	-- a frame link in slot s: its function in s - 1, base s + 1
    local e = byslot[s]
    if e and bit.band(e, 0x10000) ~= 0 then
      local fe = byslot[s - 1]
      local fn = fe and jutil.tracek(tr, bit.band(fe, 0xffff) - 0x8000)
      local link = u64(jutil.tracek(tr, bit.band(e, 0xffff) - 0x8000))
      fs[#fs + 1] = { fn = type(fn) == "function" and addr(fn) or 0, link = link, base = s + 1 }
    end
  end
  -- Each frame's pc: its callee's link (a return pc), the innermost's pc + 4.
  for n = 1, #fs do
    fs[n].pc = n < #fs and fs[n + 1].link or pc + 4
  end
  return fs, (#fs > 0 and fs[1].link or pc + 4)
end

local function dump(tr)
  local info = jutil.traceinfo(tr)
  local mc, base = jutil.tracemc(tr)
  if not (info and mc) then return end
  local T = rd64(rd64(G + off_jit_trace) + 8 * tr)	-- J->trace moves as it grows
  local nsnap = info.nexit
  local snapa, snapmap = rd64(T + 48), rd64(T + 56)
  local stubs = {}
  for k = 0, nsnap - 1 do stubs[k] = jutil.traceexitstub(k) end
  out:write(string.format("trace %d %s %s %d %d\n", tr, hex(T), hex(base), #mc, nsnap))
  for k = 0, nsnap - 1 do
    local s = snapa + 12 * k
    local mapofs, nent = rd32(s), ffi.cast("uint8_t *", s)[10]
    local pcbase = rd64(snapmap + 4 * (mapofs + nent))
    local pc = tonumber(bit.rshift(pcbase, 8))
    local fs, base_pc = frames_of(tr, k, pc)
    out:write(string.format("snap %d %d %s %s %d", tr, k, hex(pc), hex(base_pc), #fs))
    for n = #fs, 1, -1 do	-- leaf first, as luatop keeps them
      out:write(" ", hex(fs[n].fn), " ", hex(fs[n].pc))
    end
    out:write("\n")
  end
  for _, g in ipairs(guards(tr, mc, base, nsnap, stubs)) do
    out:write(string.format("guard %d %d %s\n", tr, g[2], hex(g[1])))
  end
end

-- The dump itself must not make traces (the numbers would move under it).
jit.off(dump, true)
jit.off(guards, true)
jit.off(head_end, true)
jit.off(frames_of, true)
for tr = 1, 1000 do dump(tr) end
out:write("end\n")
out:close()

for _ = 1, 600 do	-- at most 60 s
  local f = io.open(done_path)
  if f then f:close() break end
  ffi.C.usleep(100000)
end
