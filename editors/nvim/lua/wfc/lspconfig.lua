-- For nvim-lspconfig users: declares a `wfc` server, so that
--
--   require("wfc.lspconfig").register()
--   require("lspconfig").wfc.setup({})
--
-- works like any built-in configuration. (On Neovim 0.11+ without
-- lspconfig, vim.lsp.config/vim.lsp.enable work too: see docs/editors.md.)

local M = {}

--- Adds `wfc` to lspconfig's configurations; `opts` overrides the defaults.
function M.register(opts)
  local configs = require("lspconfig.configs")
  local util = require("lspconfig.util")
  if configs.wfc then
    return
  end
  configs.wfc = {
    default_config = vim.tbl_deep_extend("force", {
      cmd = { "wfc", "lsp" },
      filetypes = { "wf" },
      root_dir = util.root_pattern("wf.toml", ".git"),
      single_file_support = true,
      init_options = {},
    }, opts or {}),
    docs = {
      description = "wfc lsp: the language server of the wfc workflow language (.wf files).",
    },
  }
end

return M
