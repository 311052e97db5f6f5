-- Headless test: opens a broken .wf file, waits for wfc lsp's diagnostics
-- and checks that the expected code arrives, then that it clears after a
-- fix, and that :WfcFormat and :WfcShowIr work. Run by test/diagnostics.sh,
-- which passes the settings through the environment:
--   WFC_NVIM_PLUGIN  editors/nvim (prepended to 'runtimepath')
--   WFC_BIN          the wfc binary
--   WFC_TEST_FILE    the broken file
--   WFC_TEST_CODE    the code expected, e.g. WF0201
--   WFC_TEST_LINE    its 1-based line
--   WFC_TEST_TIMEOUT_MS

local function env(name)
  local value = os.getenv(name)
  if not value or value == "" then
    io.stderr:write("diagnostics.lua: " .. name .. " is not set\n")
    vim.cmd("cquit 2")
  end
  return value
end

local plugin = env("WFC_NVIM_PLUGIN")
local bin = env("WFC_BIN")
local file = env("WFC_TEST_FILE")
local code = env("WFC_TEST_CODE")
local line = tonumber(env("WFC_TEST_LINE"))
local timeout = tonumber(env("WFC_TEST_TIMEOUT_MS"))

local function say(message)
  io.stdout:write(message .. "\n")
end

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  local log = vim.lsp.get_log_path and vim.lsp.get_log_path()
  if log then
    io.stderr:write("(the LSP client log is " .. log .. ")\n")
  end
  vim.cmd("cquit 1")
end

-- The whole test runs under xpcall: a Lua error must fail the run, not
-- leave nvim waiting for the outer timeout.
local function main()
  vim.opt.runtimepath:prepend(plugin)
  vim.cmd("filetype on") -- sources ftdetect/wf.lua from the plugin

  -- 1. A missing binary gets a clear message, not an error trace.
  local messages = {}
  local real_notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(messages, { msg = msg, level = level })
  end
  local wfc = require("wfc")
  wfc.setup({ cmd = { "/nonexistent/wfc", "lsp" } })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  if vim.bo.filetype ~= "wf" then
    fail("filetype detection: expected 'wf', got '" .. vim.bo.filetype .. "'")
  end
  local hinted = false
  for _, m in ipairs(messages) do
    if m.msg:find("cannot find the server binary", 1, true) and m.msg:find("cargo install", 1, true) then
      hinted = true
    end
  end
  if not hinted then
    fail("no 'cannot find the server binary' message with an install hint for a missing binary; got: "
      .. vim.inspect(messages))
  end
  say("ok: a missing binary is reported: " .. messages[1].msg)
  vim.notify = real_notify
  vim.cmd("bwipeout!")

  -- 2. The real server publishes the expected diagnostic.
  wfc.setup({ cmd = { bin, "lsp" }, init_options = { debounceMs = 0 } })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()

  local found
  local ok = vim.wait(timeout, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == code then
        found = d
        return true
      end
    end
    return false
  end, 50)

  if not ok then
    local got = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(got, string.format("%s at %d:%d: %s", tostring(d.code), d.lnum + 1, d.col + 1, d.message))
    end
    local attached = vim.lsp.get_clients and #vim.lsp.get_clients({ bufnr = buf })
      or vim.tbl_count(vim.lsp.buf_get_clients(buf))
    fail(string.format("no %s diagnostic within %d ms on %s (%d client(s) attached; diagnostics received: %s)",
      code, timeout, file, attached, #got > 0 and table.concat(got, "; ") or "none"))
  end
  if found.lnum + 1 ~= line then
    fail(string.format("%s arrived at line %d, expected line %d: %s", code, found.lnum + 1, line, found.message))
  end
  if found.severity ~= vim.diagnostic.severity.ERROR then
    fail(string.format("%s arrived with severity %s, expected ERROR", code, tostring(found.severity)))
  end
  say(string.format("ok: %s at %s:%d:%d: %s", code, file, found.lnum + 1, found.col + 1,
    (found.message:gsub("\n.*", ""))))

  -- 3. Fixing the file clears the diagnostic (the server follows edits).
  vim.api.nvim_buf_set_lines(buf, line - 1, line, false, { "" })
  local cleared = vim.wait(timeout, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == code then
        return false
      end
    end
    return true
  end, 50)
  if not cleared then
    fail(code .. " still reported after deleting line " .. line)
  end
  say("ok: " .. code .. " cleared after the edit")
  vim.cmd("bwipeout!")

  -- 4. :WfcFormat formats through the server, as `wfc fmt` does.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local messy = dir .. "/messy.wf"
  vim.fn.writefile({ "workflow   Messy {start->   work   ->done", "  step work {timeout=5m}}" }, messy)
  local expected = vim.fn.systemlist({ bin, "fmt", "-" }, vim.fn.readfile(messy))
  if vim.v.shell_error ~= 0 then
    fail("wfc fmt - failed: " .. table.concat(expected, "\n"))
  end
  vim.cmd("edit " .. vim.fn.fnameescape(messy))
  buf = vim.api.nvim_get_current_buf()
  -- Retried until the server is up and answers (before that, it is a no-op).
  local formatted
  vim.wait(timeout, function()
    vim.cmd("WfcFormat")
    formatted = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    return vim.deep_equal(formatted, expected)
  end, 200)
  if not vim.deep_equal(formatted, expected) then
    fail("after :WfcFormat the buffer is\n" .. table.concat(formatted, "\n") .. "\nexpected (wfc fmt)\n"
      .. table.concat(expected, "\n"))
  end
  say("ok: :WfcFormat gives the wfc fmt layout")
  vim.cmd("bwipeout!")

  -- 5. :WfcShowIr opens the compiled IR read-only.
  vim.fn.writefile(expected, messy)
  vim.cmd("edit " .. vim.fn.fnameescape(messy))
  vim.cmd("WfcShowIr")
  local ir = vim.api.nvim_get_current_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(ir, 0, -1, false), "\n")
  local decoded_ok, decoded = pcall(vim.fn.json_decode, text)
  if not decoded_ok or type(decoded) ~= "table" or decoded.format ~= "wfc-ir" then
    fail(":WfcShowIr did not show a wfc-ir JSON document:\n" .. text:sub(1, 400))
  end
  if vim.bo[ir].modifiable or vim.bo[ir].filetype ~= "json" then
    fail(":WfcShowIr's buffer should be read-only JSON")
  end
  say("ok: :WfcShowIr shows the IR (" .. #text .. " bytes) read-only")
  vim.fn.delete(dir, "rf")

end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail("Lua error: " .. tostring(err))
end
vim.cmd("qall!")
