# SPDX-License-Identifier: MIT
# Screen scripts over the shared recordings and traces (make test-extended): the process
# picker on a system-wide perf recording, the ETL trace's stack window.
need_shared perf || return 0
screen_scripts tests/tui-shared
