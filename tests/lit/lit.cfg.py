# lit configuration for ptxvm's command-line tests: each .ptx file carries
# RUN: lines and FileCheck CHECK: lines.
import os
import sys
import lit.formats

config.name = "ptxvm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs"]
config.substitutions.append(("%ptxvm", os.path.join(config.ptxvm_bin, "ptxvm")))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%ptxas", config.ptxas or "ptxas"))
# %json: the JSON document on stdin (or a file) one value per line, for
# FileCheck; fails when it is not JSON. %status N CMD: CMD exits with N.
inputs = os.path.join(config.test_source_root, "Inputs")
config.substitutions.append(("%json", sys.executable + " " + os.path.join(inputs, "json_flat.py")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%status", sys.executable + " " + os.path.join(
    config.test_source_root, "..", "runtime", "programs", "Inputs", "status.py")))
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
# The CUDA shim's tests (tests/lit/interpose) need the shim, the fake driver and its client.
if config.shim_dir and config.fake_cuda:
    config.available_features.add("cuda-shim")
    config.substitutions.append(("%shimdir", config.shim_dir))
    config.substitutions.append(("%fakecuda", config.fake_cuda))
    config.substitutions.append(("%gpu_record", os.path.join(config.ptxvm_bin, "gpu_record")))
    config.substitutions.append(("%client", os.path.join(config.ptxvm_bin, "interpose_client")))
    config.substitutions.append(("%fatbins", os.path.join(config.test_source_root, "..", "runtime", "fatbin")))
# The CPU device (translator/, LLVM) is built in.
if getattr(config, "cpu_device", "").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("cpu-device")
# --device cpu in these tests compiles each kernel when it is loaded and keeps
# nothing on disk, so that they run the code generator's output (the cache's
# own test sets these itself).
config.environment["PTXVM_JIT"] = "eager"
config.environment["PTXVM_CACHE"] = "off"
# Graphviz's dot lays out `ptxvm analyze --format svg|html`.
import shutil
if shutil.which("dot"):
    config.available_features.add("graphviz")
