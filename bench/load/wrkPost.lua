-- wrk script of basalt's load tool (bench/load/wrk.ts): POSTs one JSON-RPC body read from a file,
-- optionally several requests per write (HTTP/1.1 pipelining; wrk counts each answer).
-- Usage: wrk -s wrkPost.lua URL -- BODY_FILE [PIPELINE]

local request_bytes

function init(args)
  local path = args[1]
  if path == nil then
    error("wrkPost.lua: expected the body file after --")
  end
  local file = assert(io.open(path, "rb"))
  local body = file:read("*a")
  file:close()
  local depth = tonumber(args[2] or "1")
  local one = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
  request_bytes = string.rep(one, depth)
end

function request()
  return request_bytes
end
