# cmake -DPAGE=docs/x.md -DFILE=examples/x.c -P page_quotes_file.cmake:
# fails unless the page quotes the file whole (an example that a test
# compiles and runs, shown on the page as it is).
file(READ "${PAGE}" page)
file(READ "${FILE}" text)
string(FIND "${page}" "${text}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PAGE} does not quote ${FILE} whole: copy the file into the page again")
endif()
