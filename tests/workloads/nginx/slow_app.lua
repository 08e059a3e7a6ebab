-- The content handler of t_offcpu_nginx.sh (content_by_lua_block calls
-- require("slow_app").handler()): each request blocks the worker for 20 ms in
-- Lua, handler -> pause -> usleep through the FFI (what a blocking client
-- library does to an nginx worker), then answers "N 20000".
local ffi = require("ffi")
pcall(ffi.cdef, "int usleep(unsigned int usec);")

local M = {}
local served = 0

local function pause(us)
  ffi.C.usleep(us)
end

function M.handler()
  pause(20000)
  served = served + 1
  ngx.say(served, " ", 20000)
end

return M
