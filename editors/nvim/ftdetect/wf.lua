-- Filetype detection for wfc's `.wf` workflow files.
-- An autocommand rather than only vim.filetype.add(): it works on every
-- Neovim from 0.7 (Debian bookworm ships 0.7.2, where filetype.lua is
-- opt-in); setfiletype never overrides a filetype already chosen.
if vim.filetype and vim.filetype.add then
  vim.filetype.add({ extension = { wf = "wf" } })
end
vim.cmd([[autocmd BufRead,BufNewFile *.wf setfiletype wf]])
