-- Neovim's built-in LSP client (0.7 and later, headless) against `sparkfold lsp`, driven
-- as a person does: open a .sql file, wait for the diagnostics, put the cursor on the
-- `= NULL` one, run the code action (`vim.lsp.buf.code_action`, its chooser answered by
-- the title wanted), write the file.  tests/test_lsp_neovim.py runs it and reads the file
-- back and the report (JSON) this writes.  Settings come from the environment:
-- SPARKFOLD_NVIM_FILE, _ROOT, _PYTHON, _WANT (the action's title), _REPORT.
local env = vim.env
local report = { diagnostics = {}, offered = {} }

local function finish(code)
  local f = assert(io.open(env.SPARKFOLD_NVIM_REPORT, 'w'))
  f:write(vim.fn.json_encode(report))
  f:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit ' .. code))
end

vim.cmd('edit ' .. vim.fn.fnameescape(env.SPARKFOLD_NVIM_FILE))
local buf = vim.api.nvim_get_current_buf()
local config = {
  name = 'sparkfold',
  cmd = { env.SPARKFOLD_NVIM_PYTHON, '-m', 'sparkfold', 'lsp' },
  root_dir = env.SPARKFOLD_NVIM_ROOT,
  init_options = { schema = { 'schema.json' } },
}
local client_id
if vim.lsp.start then -- Neovim 0.8+: starts the client and attaches the buffer
  client_id = vim.lsp.start(config)
else
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(buf, client_id)
end

if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  report.error = 'no diagnostics'
  finish(2)
  return
end
local target
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(report.diagnostics, { code = d.user_data and d.user_data.lsp and d.user_data.lsp.code or d.code,
                                     lnum = d.lnum, col = d.col, source = d.source, message = d.message })
  if report.diagnostics[#report.diagnostics].code == 'null-comparison' then target = d end
end
if not target then
  report.error = 'no null-comparison diagnostic'
  finish(3)
  return
end

local hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = target.lnum, character = target.col },
}, 30000)
for _, answer in pairs(hover or {}) do
  if answer.result then report.hover = answer.result.contents.value end
end

vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
vim.ui.select = function(items, opts, on_choice)
  local chosen
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or item[2].title
    table.insert(report.offered, title)
    if title == env.SPARKFOLD_NVIM_WANT then chosen = item end
  end
  on_choice(chosen)
end
vim.lsp.buf.code_action()
local changed = vim.wait(30000, function()
  return not vim.deep_equal(before, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
end, 20)
if not changed then
  report.error = 'the code action changed nothing'
  finish(4)
  return
end
vim.cmd('write')
finish(0)
