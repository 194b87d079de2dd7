-- wrk script for many clients polling their own sessions (cpu-per-request.sh's
-- BENCH_SESSIONS): each request asks for the next of the session tokens listed in the file
-- TOKENS_FILE (one per line), starting at a random one per thread; the request's other fields
-- are wrk's (its -H options).
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do
  if #line > 0 then tokens[#tokens + 1] = line end
end
assert(#tokens > 0, "TOKENS_FILE lists no token")
local next = math.random(#tokens)

request = function()
  next = next % #tokens + 1
  return wrk.format("GET", "/view?session=" .. tokens[next])
end
