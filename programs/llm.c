/* The library's implementation, compiled once for the programs (and the tests) that use
   only its public API: each includes llm.h for the declarations alone and links this
   object, the way a project with several files of its own uses llm.h. The examples and the
   tests that reach the internals compile the implementation in their own file instead. */
#define LLM_IMPLEMENTATION
#include "../llm.h"
