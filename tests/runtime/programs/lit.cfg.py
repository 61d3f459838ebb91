# lit configuration for the CUDA runtime replacement: each .cu here is a program built with
# `nvcc -cudart shared` (tests/runtime/cudart.cmake) whose RUN lines run it under `ptxvm exec`
# (or with the PTXVM_* environment) and check its output, exit status, stderr and report.
import os
import lit.formats

config.name = "ptxvm-cudart"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu"]
config.excludes = ["Inputs"]
config.substitutions.append(("%ptxvm", os.path.join(config.ptxvm_bin, "ptxvm")))
config.substitutions.append(("%bin", config.programs_dir))
config.substitutions.append(("%libdir", config.cudart_dir))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%status", config.python + " " + os.path.join(config.test_source_root, "Inputs", "status.py")))
config.substitutions.append(("%json", config.python + " " + os.path.join(
    config.test_source_root, "..", "..", "lit", "Inputs", "json_flat.py")))
config.substitutions.append(("FileCheck", config.filecheck))
# Only what the tests set: no PTXVM_* from the caller's environment.
for name in list(config.environment):
    if name.startswith("PTXVM_"):
        del config.environment[name]
if config.sanitize:
    # The library is built with AddressSanitizer but the programs are not:
    # its runtime must be loaded first.
    config.environment["LD_PRELOAD"] = config.asan_runtime
    # The programs own their signals (crash.cu checks what a SIGSEGV leaves).
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
