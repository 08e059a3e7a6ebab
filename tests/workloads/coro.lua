-- Coroutines resumed from Lua, burning CPU inside: the merged stack must continue
-- from the resumer's frames (coroutine.resume) into the coroutine's. Runs arg[1] s.
local function spin(n)
  local x = 0
  for i = 1, n do x = (x + i * 7) % 1000003 end
  return x
end

local function body()
  while true do
    coroutine.yield(spin(200000))
  end
end

local function driver(co)
  local _, v = coroutine.resume(co)
  return v
end

local deadline = os.clock() + (tonumber(arg and arg[1]) or 30)
local co = coroutine.create(body)
local acc = 0
while os.clock() < deadline do
  acc = (acc + driver(co)) % 65536
end
print(acc)
