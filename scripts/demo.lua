-- luatop demo workload: a small "request handler" loop with a known shape.
-- parse_request ~ 20%, render_page ~ 50% (of which escape_html is most), checksum ~ 30%.
local function parse_request(line)
  local t = {}
  for k, v in line:gmatch("(%w+)=(%w+)") do t[k] = v end
  return t
end

local function escape_html(s)
  return (s:gsub("[<>&]", { ["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;" }))
end

local function render_page(req)
  local parts = {}
  for i = 1, 40 do
    parts[#parts + 1] = escape_html("<li>" .. (req.user or "?") .. " & item " .. i .. "</li>")
  end
  return table.concat(parts, "\n")
end

local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function handle(line)
  local req = parse_request(line)
  local page = render_page(req)
  return checksum(page)
end

local deadline = os.time() + (tonumber(arg and arg[1]) or 3600)
local n, acc = 0, 0
while os.time() < deadline do
  for _ = 1, 200 do
    acc = (acc + handle("user=alice&page=42&sort=name&filter=none")) % 65536
    n = n + 1
  end
end
print(n, acc)
