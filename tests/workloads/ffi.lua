-- LuaJIT workload for t_merge_ffi.sh: Lua calls C through ffi.C in a hot loop
-- (strlen, abs), and C qsort calls a Lua comparator through an FFI callback.
-- Runs arg[1] seconds.
local ffi = require("ffi")
ffi.cdef[[
size_t strlen(const char *s);
int abs(int j);
void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *));
]]
local secs = tonumber(arg[1]) or 30
local function compare(a, b)
  local x = ffi.cast("const int *", a)[0]
  local y = ffi.cast("const int *", b)[0]
  local s = 0
  for i = 1, 50 do s = s + i end
  return x < y and -1 or (x > y and 1 or 0)
end
local cb = ffi.cast("int (*)(const void *, const void *)", compare)
local function sort_some(n)
  local a = ffi.new("int[?]", n)
  for i = 0, n - 1 do a[i] = (i * 7919) % n end
  ffi.C.qsort(a, n, 4, cb)
  return a[0]
end
local str = string.rep("y", 200)
local function call_c(n)
  local s = 0
  for i = 1, n do s = s + tonumber(ffi.C.strlen(str)) + ffi.C.abs(-i) end
  return s
end
local deadline = os.clock() + secs
local sink = 0
while os.clock() < deadline do
  sink = sink + sort_some(2000) + call_c(200000)
end
io.write(sink >= 0 and "" or "?")
