# complete.sh SCRIPT WORD... : what the bash completion SCRIPT offers for the command line
# WORD... with the cursor in the last word (COMP_WORDS/COMP_CWORD as bash sets them),
# printed as one line.
script=$1
shift
source "$script"
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
_ptxvm
echo "${COMPREPLY[*]}"
