#!/usr/bin/env bash
# Writes stubs.S for driver_log.c: one exported jump per function of libcuda-symbols.txt (but the
# three driver_log.c defines), each marking itself called first.
set -euo pipefail
symbols=$(dirname "$0")/../../../runtime/interpose/libcuda-symbols.txt
names=$(grep '^cu' "$symbols" | grep -v -x -e cuGetProcAddress -e cuGetProcAddress_v2 -e cuGetExportTable)
count=$(wc -l <<<"$names")
echo "	.text"
i=0
while read -r name; do
  printf '\t.globl %s\n\t.type %s,@function\n%s:\n\tmovb $1, driver_log_called+%d(%%rip)\n\tjmp *driver_log_table+%d(%%rip)\n' \
    "$name" "$name" "$name" "$i" "$((i * 8))"
  i=$((i + 1))
done <<<"$names"
printf '\t.data\n\t.globl driver_log_table\n\t.hidden driver_log_table\n\t.align 8\ndriver_log_table:\n\t.zero %d\n' "$((count * 8))"
printf '\t.globl driver_log_called\n\t.hidden driver_log_called\ndriver_log_called:\n\t.zero %d\n' "$count"
printf '\t.section .data.rel.ro,"aw"\n\t.align 8\n\t.globl driver_log_names\ndriver_log_names:\n'
i=0
while read -r name; do printf '\t.quad .Lname%d\n' "$i"; i=$((i + 1)); done <<<"$names"
printf '\t.section .rodata\n\t.globl driver_log_count\n\t.align 4\ndriver_log_count:\n\t.long %d\n' "$count"
i=0
while read -r name; do printf '.Lname%d:\n\t.asciz "%s"\n' "$i" "$name"; i=$((i + 1)); done <<<"$names"
printf '\t.section .note.GNU-stack,"",@progbits\n'
