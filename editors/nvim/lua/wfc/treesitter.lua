-- Registers the wfc tree-sitter grammar (grammar/tree-sitter-wf in the wfc
-- repository) with nvim-treesitter, so `:TSInstall wf` builds it. The
-- highlight, fold, indent, injection and locals queries are this plugin's
-- queries/wf/*.scm (copies of the grammar's, see scripts/sync-queries.sh).
--
--   require("wfc.treesitter").register()           -- the grammar of this checkout
--   require("wfc.treesitter").register({ url = "https://…/wfc.git", location = "grammar/tree-sitter-wf" })

local M = {}

--- grammar/tree-sitter-wf of the checkout this plugin lives in.
function M.local_grammar()
  local source = debug.getinfo(1, "S").source:gsub("^@", "")
  -- …/editors/nvim/lua/wfc/treesitter.lua -> the repository root
  local root = vim.fn.fnamemodify(source, ":p:h:h:h:h:h")
  return root .. "/grammar/tree-sitter-wf"
end

local function files(dir)
  local list = { "src/parser.c" }
  if dir and vim.loop.fs_stat(dir .. "/src/scanner.c") then
    table.insert(list, "src/scanner.c")
  end
  return list
end

--- Adds the `wf` parser to nvim-treesitter. `opts.url` is a git URL or a
--- local directory (default: this checkout's grammar); `opts.location` is
--- the grammar's directory inside a git URL's repository. Returns false
--- when nvim-treesitter is not installed.
function M.register(opts)
  opts = opts or {}
  local url = opts.url or M.local_grammar()
  local is_local = vim.loop.fs_stat(url) ~= nil
  local ok, parsers = pcall(require, "nvim-treesitter.parsers")
  if not ok then
    vim.notify("wfc: nvim-treesitter is not installed; the wf parser was not registered", vim.log.levels.WARN)
    return false
  end
  if parsers.get_parser_configs then
    -- nvim-treesitter `master`.
    parsers.get_parser_configs().wf = {
      install_info = {
        url = url,
        files = files(is_local and url or nil),
        location = (not is_local) and (opts.location or "grammar/tree-sitter-wf") or nil,
        branch = opts.branch,
        requires_generate_from_grammar = false,
      },
      filetype = "wf",
    }
  else
    -- nvim-treesitter `main`: parsers are declared on the TSUpdate event.
    local function declare()
      require("nvim-treesitter.parsers").wf = {
        install_info = {
          url = url,
          path = is_local and url or nil,
          location = (not is_local) and (opts.location or "grammar/tree-sitter-wf") or nil,
          branch = opts.branch,
        },
      }
    end
    declare()
    vim.api.nvim_create_autocmd("User", { pattern = "TSUpdate", callback = declare })
  end
  return true
end

return M
