# The analysis library's suites: graphs, SSA, divergence, barriers, passes.
add_executable(analysis_tests
  analysis/AffineTest.cpp
  analysis/BarrierTest.cpp
  analysis/CorpusAnalysisTest.cpp
  analysis/DivergenceTest.cpp
  analysis/DivergenceTestUtil.cpp
  analysis/Generators.cpp
  analysis/GraphTest.cpp
  analysis/InterproceduralTest.cpp
  analysis/IrreducibleTest.cpp
  analysis/LocalMemoryTest.cpp
  analysis/OutOfSSATest.cpp
  analysis/PassManagerTest.cpp
  analysis/ReferenceGates.cpp
  analysis/SSATest.cpp
  analysis/SharedBroadcastTest.cpp
  analysis/ThreadValuesTest.cpp
  analysis/TestUtil.cpp
  Corpus.cpp
)
target_link_libraries(analysis_tests PRIVATE analysis GTest::gtest_main)
target_compile_definitions(analysis_tests PRIVATE ${PTXVM_TEST_DEFINES})
target_include_directories(analysis_tests PRIVATE ${PROJECT_SOURCE_DIR})
ptxvm_gtest_batches(analysis_tests DISCOVERY_TIMEOUT 60)
