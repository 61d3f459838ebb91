# lit configuration for ptxvm's command-line tests: each .ptx file carries
# RUN: lines and FileCheck CHECK: lines.
import os
import lit.formats

config.name = "ptxvm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs"]
config.substitutions.append(("%ptxvm", os.path.join(config.ptxvm_bin, "ptxvm")))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%ptxas", config.ptxas or "ptxas"))
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
