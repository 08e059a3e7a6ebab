-- Run by luahost (luahost.c): burns CPU at four points, each reached through a
-- different kind of frame, and writes debug.traceback() once at each (the ground
-- truth for t_lua_host.sh) to the file in arg[2], as
--   == POINT
--   stack traceback:
--   	...
-- Each burn function records on the line of its burn loop: that line is the
-- traceback's line for the leaf, and the one a line-granularity profile shows.
-- No call here is a tail call (a tail call drops the caller's frame).
local secs = tonumber(arg[1]) or 60
local tbfile = arg[2]
local recorded = {}

local function record(point)
  if recorded[point] then return end
  recorded[point] = true
  local f = assert(io.open(tbfile, "a"))
  f:write("== ", point, "\n", debug.traceback("", 2):gsub("^\n", ""), "\n")
  f:close()
end

-- Lua -> C -> Lua -> C -> Lua.
function burn_nested(n)
  local s = 0
  record("nested"); for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

local function middle(n)
  local r = c_nested(burn_nested, n)
  return r
end

function outer(n)
  local r = c_callback(middle, n)
  return r
end

-- pcall.
function burn_pcall(n)
  local s = 0
  record("pcall"); for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end

local M = {}            -- called as a field: M.protected(n)
function M.protected(n)
  local ok, r = pcall(burn_pcall, n)
  assert(ok, r)
  return r
end

-- table.sort with a Lua comparator.
local function burn_cmp(a, b)
  local s = 0
  record("sort"); for i = 1, 400 do s = (s + i * 7) % 1000003 end
  return a < b
end

local obj = {}          -- called as a method: obj:sorter(n)
function obj:sorter(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % n end
  table.sort(t, burn_cmp)
  return t[1]
end

-- string.gsub with a Lua callback.
local function burn_gsub(c)
  local s = 0
  record("gsub"); for i = 1, 3000 do s = (s + i * 7) % 1000003 end
  return c
end

local function substitute(n)   -- called as an upvalue from run
  local str = string.rep("x", n)
  local r = str:gsub("x", burn_gsub)
  return #r
end

local function run()     -- called as a local from the main chunk
  local deadline = os.clock() + secs
  local sink = 0
  while os.clock() < deadline do
    sink = sink + outer(200000) + M.protected(200000) + obj:sorter(64) + substitute(64)
  end
  return sink
end

local sink = run()
io.write(sink >= 0 and "" or "?")
