-- For luahost (t_merge_pcall.sh): a function so small that the host's loop of
-- lua_pcall spends much of its time with the VM being entered and left, no
-- Lua frame below.
function host_loop(i)
  return i + 1
end
