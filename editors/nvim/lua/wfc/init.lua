-- wfc support for Neovim: starts `wfc lsp` for `.wf` buffers.
--
--   require("wfc").setup({})                      -- defaults below
--   require("wfc").setup({ cmd = { "/path/to/wfc", "lsp" }, attractor = true })
--
-- Works without nvim-lspconfig, on Neovim 0.7 and later: vim.lsp.start()
-- where it exists (0.8+), vim.lsp.start_client() and buf_attach_client()
-- before that.

local M = {}

local uv = vim.loop

--- The defaults; every field can be overridden in setup().
M.defaults = {
  -- The server command; the first element is looked up on PATH.
  cmd = { "wfc", "lsp" },
  -- Filetypes the server attaches to. `attractor = true` adds "dot" and
  -- "fabro" (Attractor pipelines), which are off by default because not
  -- every .dot file is a pipeline.
  filetypes = { "wf" },
  attractor = false,
  -- The project root is the nearest directory holding one of these, else
  -- the file's own directory.
  root_markers = { "wf.toml", ".git" },
  -- Sent as initializationOptions, e.g. { debounceMs = 0 }.
  init_options = {},
  -- Passed through to the client config.
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(M.defaults)

local INSTALL_HINT = "Install it with `cargo install --path crates/wfc --locked` from a clone of the wfc "
  .. "repository, or pass its path: require('wfc').setup({ cmd = { '/path/to/wfc', 'lsp' } })."

local warned = false

local function notify(message, level)
  vim.notify("wfc: " .. message, level or vim.log.levels.ERROR)
end

--- Returns the nearest ancestor of `path` holding one of `markers`, or nil.
local function find_root(path, markers)
  local dir = path
  while dir and dir ~= "" do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

--- The root directory for buffer `bufnr`.
function M.root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  return find_root(dir, M.config.root_markers) or dir
end

--- True when the server binary can be run; tells the user once otherwise.
function M.check_binary()
  local bin = M.config.cmd[1]
  if vim.fn.executable(bin) == 1 then
    return true
  end
  if not warned then
    warned = true
    notify(string.format("cannot find the server binary %q (not executable or not on PATH). %s", bin, INSTALL_HINT))
  end
  return false
end

local clients = {} -- root dir -> client id (Neovim 0.7 only)

local function client_config(root)
  return {
    name = "wfc",
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = M.config.init_options,
    on_attach = M.config.on_attach,
    capabilities = M.config.capabilities,
    on_exit = function(code, signal)
      clients[root] = nil
      if code ~= 0 then
        notify(string.format("`%s` exited with status %d (signal %d); see :lua vim.cmd('edit ' .. vim.lsp.get_log_path())",
          table.concat(M.config.cmd, " "), code, signal), vim.log.levels.WARN)
      end
    end,
  }
end

--- Starts (or reuses) the server for buffer `bufnr` and attaches it.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not M.check_binary() then
    return nil
  end
  local root = M.root_dir(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify("could not start " .. table.concat(M.config.cmd, " "))
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Formats the buffer through the server (the layout of `wfc fmt`).
function M.format(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ bufnr = bufnr, name = "wfc" })
  else
    vim.lsp.buf.formatting_sync(nil, 5000)
  end
end

--- Shows the compiled IR of the buffer's file (`wfc build FILE -o -`) in a
--- read-only scratch buffer.
function M.show_ir(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" then
    return notify("save the buffer first: wfc build compiles files on disk")
  end
  if vim.bo[bufnr].modified then
    notify("compiling the file on disk; the buffer has unsaved changes", vim.log.levels.WARN)
  end
  local bin = M.config.cmd[1]
  local out = vim.fn.systemlist({ bin, "build", file, "--emit", "ir", "-o", "-", "--color", "never" })
  if vim.v.shell_error ~= 0 then
    return notify(file .. " does not compile:\n" .. table.concat(out, "\n"))
  end
  vim.cmd("vnew")
  local ir = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(ir, 0, -1, false, out)
  vim.bo[ir].buftype = "nofile"
  vim.bo[ir].bufhidden = "wipe"
  vim.bo[ir].filetype = "json"
  vim.bo[ir].modifiable = false
  pcall(vim.api.nvim_buf_set_name, ir, file .. ".ir.json")
end

--- Restarts the server: stops every wfc client and reattaches the buffers.
function M.restart()
  local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(get_clients()) do
    if client.name == "wfc" then
      vim.lsp.stop_client(client.id)
    end
  end
  clients = {}
  vim.defer_fn(function()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
        M.attach(buf)
      end
    end
  end, 500)
end

--- Configures the server and attaches it to matching buffers, present and
--- future. Adds the :WfcFormat, :WfcShowIr and :WfcRestart commands.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  warned = false
  local filetypes = vim.deepcopy(M.config.filetypes)
  if M.config.attractor then
    vim.list_extend(filetypes, { "dot", "fabro" })
    vim.cmd([[autocmd BufRead,BufNewFile *.fabro setfiletype fabro]])
  end
  M.config.filetypes = filetypes

  local group = vim.api.nvim_create_augroup("wfc_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Buffers opened before setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end

  vim.api.nvim_create_user_command("WfcFormat", function()
    M.format()
  end, { desc = "Format the buffer with wfc" })
  vim.api.nvim_create_user_command("WfcShowIr", function()
    M.show_ir()
  end, { desc = "Show the compiled IR of this file" })
  vim.api.nvim_create_user_command("WfcRestart", function()
    M.restart()
  end, { desc = "Restart wfc lsp" })
end

return M
