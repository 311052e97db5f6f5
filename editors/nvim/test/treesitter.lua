-- Headless test: the tree-sitter parser and this plugin's queries/wf/*.scm,
-- loaded the way Neovim loads them (parser/wf.so and queries/ on
-- 'runtimepath'), on every example. Run by test/treesitter.sh, which sets
--   WFC_NVIM_PLUGIN  editors/nvim
--   WFC_TS_RTP       a directory holding parser/wf.so
--   WFC_TS_FILES     newline-separated .wf files that must parse cleanly

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

vim.opt.runtimepath:prepend(os.getenv("WFC_TS_RTP"))
vim.opt.runtimepath:prepend(os.getenv("WFC_NVIM_PLUGIN"))
vim.cmd("filetype on")

local ok, err = pcall(vim.treesitter.require_language, "wf")
if not ok then
  fail("cannot load the wf parser from 'runtimepath': " .. tostring(err))
end

local get_query = vim.treesitter.query.get or vim.treesitter.query.get_query
local queries = {}
for _, name in ipairs({ "highlights", "folds", "indents", "injections", "locals" }) do
  local qok, query = pcall(get_query, "wf", name)
  if not qok then
    fail(string.format("queries/wf/%s.scm does not load: %s", name, tostring(query)))
  end
  if not query then
    fail(string.format("queries/wf/%s.scm is not on 'runtimepath'", name))
  end
  queries[name] = query
end

-- Captures every highlighting theme relies on; each must occur somewhere.
local expected = { "comment", "keyword", "string", "number", "label", "property", "type.builtin", "variable" }
local seen = {}
local files = vim.split(os.getenv("WFC_TS_FILES"), "\n", { trimempty = true })
for _, file in ipairs(files) do
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= "wf" then
    fail(file .. ": filetype is '" .. vim.bo[buf].filetype .. "', not wf")
  end
  local tree = vim.treesitter.get_parser(buf, "wf"):parse()[1]
  local root = tree:root()
  if root:has_error() then
    fail(file .. ": the parse tree has an ERROR or MISSING node")
  end
  for id in queries.highlights:iter_captures(root, buf, 0, -1) do
    seen[queries.highlights.captures[id]] = true
  end
  local folds = 0
  for _ in queries.folds:iter_captures(root, buf, 0, -1) do
    folds = folds + 1
  end
  if folds == 0 then
    fail(file .. ": folds.scm captures nothing")
  end
  vim.cmd("bwipeout!")
end
for _, capture in ipairs(expected) do
  if not seen[capture] then
    fail("highlights.scm never captured @" .. capture .. " in " .. #files .. " files")
  end
end
io.stdout:write(string.format("ok: %d files parse without errors; queries load; captures: %s\n", #files,
  table.concat(vim.tbl_keys(seen), " ")))
vim.cmd("qall!")
