#!/usr/bin/env bash
# Writes stubs.S for driver_log.c: one exported jump per function of libcuda-symbols.txt (but the
# three driver_log.c defines), each marking itself called first.
set -euo pipefail
if [[ ${1:-} == --trampolines ]]; then
  # trace.c's trampolines: each puts its index in %eax and goes to the common body, which logs the
  # call (driver_log_enter gives the target), calls the target with the caller's stack arguments
  # in place, logs the result (driver_log_leave gives the caller's return address) and returns.
  echo "	.text"
  echo "	.globl driver_log_tramp_0"
  for ((i = 0; i < 1024; ++i)); do
    printf '\t.balign 16\n'
    ((i == 0)) && echo "driver_log_tramp_0:"
    printf '\tmovl $%d, %%eax\n\tjmp driver_log_tramp_common\n' "$i"
  done
  cat <<'ASM'
	.balign 16
driver_log_tramp_common:
	push %rdi
	push %rsi
	push %rdx
	push %rcx
	push %r8
	push %r9
	sub $8, %rsp
	mov %eax, %edi
	lea 8(%rsp), %rsi
	mov 56(%rsp), %rdx
	call driver_log_enter@PLT
	mov %rax, %r11
	add $8, %rsp
	pop %r9
	pop %r8
	pop %rcx
	pop %rdx
	pop %rsi
	pop %rdi
	add $8, %rsp
	call *%r11
	push %rax
	push %rdx
	mov %rax, %rdi
	call driver_log_leave@PLT
	mov %rax, %r11
	pop %rdx
	pop %rax
	jmp *%r11
	.section .rodata
	.globl driver_log_tramp_size
	.align 4
driver_log_tramp_size:
	.long 16
	.section .note.GNU-stack,"",@progbits
ASM
  exit 0
fi
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
