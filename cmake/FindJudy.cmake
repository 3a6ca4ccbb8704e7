# FindJudy: Judy arrays (Debian: libjudy-dev). Defines Judy::Judy.
find_path(JUDY_INCLUDE_DIR Judy.h)
find_library(JUDY_LIBRARY NAMES Judy)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Judy DEFAULT_MSG JUDY_LIBRARY JUDY_INCLUDE_DIR)
if(Judy_FOUND AND NOT TARGET Judy::Judy)
  add_library(Judy::Judy UNKNOWN IMPORTED)
  set_target_properties(Judy::Judy PROPERTIES
    IMPORTED_LOCATION "${JUDY_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${JUDY_INCLUDE_DIR}")
endif()
mark_as_advanced(JUDY_INCLUDE_DIR JUDY_LIBRARY)
