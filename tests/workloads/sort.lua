-- LuaJIT workload for t_merge_sort.sh: table.sort with a Lua comparator, so that
-- C (lj_cf_table_sort) calls into the VM through lua_call ~1,500 times a sort.
-- Each call enters the VM (lj_vm_call's prologue, before its frame is linked
-- into L->cframe) and leaves it (vm_leave_cp's epilogue, after the unlink).
-- Runs arg[1] seconds.
local secs = tonumber(arg[1]) or 30
local function cmp(a, b) return a < b end
local t, sink = {}, 0
local stop = os.clock() + secs
while os.clock() < stop do
  for i = 1, 200 do t[i] = (i * 7919) % 1000 end
  table.sort(t, cmp)
  sink = sink + t[1]
end
io.write(sink >= 0 and "" or "?")
