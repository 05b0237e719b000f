// gpuplan._core: the Python face of the one API (src/api/api.h). Thin by design: Python values become
// the API's options (JSON), the API's document becomes Python dicts and lists, and C++ exceptions become
// gpuplan.Error subclasses (python/gpuplan/errors.py). Every evaluation runs with the GIL released, so
// threads evaluate in parallel; a Session is immutable and shared by any number of threads.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/api.h"
#include "core/error.h"

namespace py = pybind11;
using nlohmann::json;

namespace {

std::string type_name(py::handle value) { return py::str(py::type::handle_of(value).attr("__name__")); }

std::string utf8(PyObject* text) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text, &size);
  if (data == nullptr) throw py::error_already_set();
  return {data, static_cast<std::size_t>(size)};
}

// Where a value sits in the options ("plan.tp", "mix[2]"), spelled out only for an error message.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;  // set for a dict entry
  std::size_t index = 0;  // for a list element, when key is empty
  std::string str() const {
    if (parent == nullptr) return std::string(key);
    std::string head = parent->str();
    if (!key.empty()) return head.empty() ? std::string(key) : head + "." + std::string(key);
    return head + "[" + std::to_string(index) + "]";
  }
};

// A Python value as a JSON option value; errors name the option by its path.
json to_json(py::handle value, const Path& path) {
  PyObject* o = value.ptr();
  if (o == Py_None) return nullptr;
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) throw gpuplan::InputError(path.str(), "an integer within +/-9.2e18 (got one out of that range)");
    return v;
  }
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyUnicode_Check(o)) return utf8(o);
  if (PyDict_Check(o)) {
    json object = json::object();
    PyObject* key = nullptr;
    PyObject* item = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &key, &item)) {
      if (!PyUnicode_Check(key)) throw gpuplan::InputError(path.str(), "keys must be str (got " + type_name(key) + ")");
      std::string name = utf8(key);
      object[name] = to_json(item, Path{&path, name});
    }
    return object;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    json array = json::array();
    std::size_t i = 0;
    for (auto item : value) {
      array.push_back(to_json(item, Path{&path, {}, i}));
      ++i;
    }
    return array;
  }
  // numpy and other numeric scalars: integers through __index__, reals through __float__.
  if (PyIndex_Check(o)) {
    PyObject* integer = PyNumber_Index(o);
    if (integer == nullptr) throw py::error_already_set();
    return to_json(py::reinterpret_steal<py::object>(integer), path);
  }
  if (py::hasattr(value, "__float__")) return to_json(py::float_(py::reinterpret_borrow<py::object>(value)), path);
  throw gpuplan::InputError(path.str(), "a str, int, float, bool, list or dict (got " + type_name(value) + ")");
}

// The keys of documents as Python str objects, made once and kept (with their hash computed), so a
// document's dicts are filled without creating, hashing and freeing a str per key. Bounded: keys that
// come from data (names of catalog entries) stop being cached past the bound. Touched only with the
// GIL held.
//
// Documents of one kind repeat their keys in the same order (the dicts are filled walking the
// document), so the cache also keeps the last document's sequence of keys: a key equal to the one
// at the same place last time costs one string comparison instead of a hash lookup. A document of
// another shape replaces the sequence from where it differs.
class KeyCache {
 public:
  // Before each document.
  void start() { cursor_ = 0; }

  // A new reference to the str of `key`, or nullptr with the Python error set.
  PyObject* get(const std::string& key) {
    if (cursor_ < trail_.size() && *trail_[cursor_].text == key) {
      PyObject* str = trail_[cursor_++].str;
      Py_INCREF(str);
      return str;
    }
    trail_.resize(std::min(cursor_, trail_.size()));  // the sequence differs from here on
    auto it = keys_.find(key);
    if (it == keys_.end()) {
      PyObject* text = PyUnicode_DecodeUTF8(key.data(), static_cast<Py_ssize_t>(key.size()), "replace");
      if (text == nullptr || keys_.size() >= kMaxKeys) return text;
      PyUnicode_InternInPlace(&text);
      if (PyObject_Hash(text) == -1) {
        Py_DECREF(text);
        return nullptr;
      }
      it = keys_.emplace(key, text).first;  // the cache's reference, kept for the life of the process
    }
    if (trail_.size() < kMaxKeys) {
      trail_.push_back({&it->first, it->second});  // the map's nodes never move: pointers stay valid
      cursor_ = trail_.size();
    }
    Py_INCREF(it->second);
    return it->second;
  }

 private:
  static constexpr std::size_t kMaxKeys = 4096;
  struct Seen {
    const std::string* text;
    PyObject* str;  // borrowed from keys_
  };
  std::unordered_map<std::string, PyObject*> keys_;
  std::vector<Seen> trail_;
  std::size_t cursor_ = 0;
};

KeyCache& key_cache() {
  static KeyCache* cache = new KeyCache;  // never destroyed: its str objects outlive interpreter teardown
  return *cache;
}

// A dict sized for n items up front where CPython offers it (no resizes while filling a document's
// larger objects).
PyObject* new_dict(std::size_t n) {
#if PY_VERSION_HEX < 0x030D0000
  return _PyDict_NewPresized(static_cast<Py_ssize_t>(n));
#else
  (void)n;
  return PyDict_New();
#endif
}

// The API's document as Python values (objects -> dict, arrays -> list): a new reference, or nullptr
// with the Python error set. CPython's API directly, walking nlohmann's containers without its
// iteration proxies: a document has a hundred values or more and a point evaluation costs
// microseconds, so the conversion must not cost more.
PyObject* to_python(const json& value) {
  switch (value.type()) {
    case json::value_t::boolean:
      return PyBool_FromLong(value.get<bool>() ? 1 : 0);
    case json::value_t::number_integer:
      return PyLong_FromLongLong(value.get<long long>());
    case json::value_t::number_unsigned:
      return PyLong_FromUnsignedLongLong(value.get<unsigned long long>());
    case json::value_t::number_float:
      return PyFloat_FromDouble(value.get<double>());
    case json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      // A document may quote a file's bytes (a dataset row): not UTF-8 there is U+FFFD, never an error.
      return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    }
    case json::value_t::array: {
      const auto& items = value.get_ref<const json::array_t&>();
      PyObject* list = PyList_New(static_cast<Py_ssize_t>(items.size()));
      if (list == nullptr) return nullptr;
      Py_ssize_t i = 0;
      for (const auto& item : items) {
        PyObject* element = to_python(item);
        if (element == nullptr) {
          Py_DECREF(list);
          return nullptr;
        }
        PyList_SET_ITEM(list, i++, element);  // steals the reference
      }
      return list;
    }
    case json::value_t::object: {
      const auto& items = value.get_ref<const json::object_t&>();
      PyObject* dict = new_dict(items.size());
      if (dict == nullptr) return nullptr;
      KeyCache& keys = key_cache();
      for (const auto& [key, item] : items) {
        PyObject* k = keys.get(key);
        PyObject* v = k == nullptr ? nullptr : to_python(item);
        const int failed = v == nullptr ? -1 : PyDict_SetItem(dict, k, v);
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (failed != 0) {
          Py_DECREF(dict);
          return nullptr;
        }
      }
      return dict;
    }
    default:  // null (binary and discarded values never appear in a document)
      Py_RETURN_NONE;
  }
}

py::object from_json(const json& value) {
  key_cache().start();
  PyObject* object = to_python(value);
  if (object == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(object);
}

json options_json(const py::dict& options) { return to_json(options, Path{}); }

std::string str_of(PyObject* value) {
  PyObject* text = PyObject_Str(value);
  if (text == nullptr) throw py::error_already_set();
  const auto owned = py::reinterpret_steal<py::object>(text);
  return utf8(text);
}

// One field of the training plan as its CLI text: "tp=8", "sp=true".
std::string plan_item(const std::string& key, PyObject* value) {
  if (PyBool_Check(value)) return key + "=" + (value == Py_True ? "true" : "false");
  return key + "=" + str_of(value);
}

// A function's keyword arguments as run()'s options (what `gpuplan COMMAND` would be given): None
// leaves an option out, '_' in a keyword is the CLI name's '-', the training plan's fields
// (plan_tp=8, or plan={"tp": 8}) join `plan` as its CLI text after a plan="..." string, in the
// order given, and positional arguments become str under "positional". Done here, not in Python:
// a point evaluation costs microseconds, and so did that loop in Python.
json keyword_options(const py::dict& keywords, const py::tuple& positional) {
  json options = json::object();
  std::string plan;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(keywords.ptr(), &pos, &key, &value)) {
    if (value == Py_None) continue;
    if (!PyUnicode_Check(key)) throw gpuplan::InputError("options", "keywords must be str (got " + type_name(key) + ")");
    std::string name = utf8(key);
    if (name == "plan" && PyDict_Check(value)) {
      PyObject* field = nullptr;
      PyObject* item = nullptr;
      Py_ssize_t at = 0;
      while (PyDict_Next(value, &at, &field, &item))
        if (item != Py_None) plan += (plan.empty() ? "" : ",") + plan_item(str_of(field), item);
    } else if (name.rfind("plan_", 0) == 0) {
      plan += (plan.empty() ? "" : ",") + plan_item(name.substr(5), value);
    } else {
      if (name != "plan")
        for (char& c : name)
          if (c == '_') c = '-';
      options[name] = to_json(value, Path{nullptr, name});
    }
  }
  if (!plan.empty()) {
    const auto given = options.find("plan");
    if (given != options.end() && given->is_string() && !given->get_ref<const std::string&>().empty())
      plan = given->get<std::string>() + "," + plan;
    options["plan"] = std::move(plan);
  }
  if (!positional.empty()) {
    json items = json::array();
    for (const auto& p : positional) items.push_back(str_of(p.ptr()));
    options["positional"] = std::move(items);
  }
  return options;
}

// run() on the options, the GIL released, its document as Python values.
py::object run_options(const gpuplan::api::Session& session, const std::string& command, const json& request) {
  json document;
  {
    py::gil_scoped_release release;
    document = gpuplan::api::run(session, command, request);
  }
  return from_json(document);
}

// Raises gpuplan.errors.<name>(message[, field]); falls back to RuntimeError if that module is missing.
void raise_gpuplan_error(const char* name, const std::string& message, const std::string* field) {
  try {
    py::object type = py::module_::import("gpuplan.errors").attr(name);
    py::object error = field ? type(message, *field) : type(message);
    PyErr_SetObject(type.ptr(), error.ptr());
  } catch (py::error_already_set&) {
    PyErr_SetString(PyExc_RuntimeError, message.c_str());
  }
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpuplan's C++ core: Session, run, report_html, commands, does_not_fit (use the gpuplan package)";

  // C++ exceptions -> gpuplan.Error subclasses. pybind11's own exceptions (and bad_alloc -> MemoryError)
  // pass through to its translators.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const gpuplan::InputError& e) {
      raise_gpuplan_error("InputError", e.what(), &e.field());
    } catch (const std::exception& e) {
      raise_gpuplan_error("Error", e.what(), nullptr);
    }
  });

  py::class_<gpuplan::api::Session, std::shared_ptr<gpuplan::api::Session>>(
      m, "Session", "The catalog calls run against: the built-in one overlaid by catalog folders and calibration files.")
      .def(py::init([](std::vector<std::string> catalog_dirs, std::vector<std::string> calibration_files) {
             py::gil_scoped_release release;
             return std::make_shared<gpuplan::api::Session>(std::move(catalog_dirs), std::move(calibration_files));
           }),
           py::arg("catalog_dirs") = std::vector<std::string>{}, py::arg("calibration_files") = std::vector<std::string>{});

  m.def(
      "run",
      [](const gpuplan::api::Session& session, const std::string& command, const py::dict& options) {
        return run_options(session, command, options_json(options));
      },
      py::arg("session"), py::arg("command"), py::arg("options"),
      "Runs one command (options named as its CLI long options) and returns its --json document as a dict.");

  m.def(
      "call",
      [](const gpuplan::api::Session& session, const std::string& command, const py::dict& keywords,
         const py::tuple& positional) {
        return run_options(session, command, keyword_options(keywords, positional));
      },
      py::arg("session"), py::arg("command"), py::arg("keywords"), py::arg("positional"),
      "run() on a function's keyword arguments and positional arguments (the gpuplan package's functions).");

  m.def(
      "options",
      [](const py::dict& keywords, const py::tuple& positional) { return from_json(keyword_options(keywords, positional)); },
      py::arg("keywords"), py::arg("positional"), "The options call() gives run() for these keyword arguments.");

  m.def(
      "report_html",
      [](const gpuplan::api::Session& session, const std::string& kind, const py::dict& keywords) {
        const json request = keyword_options(keywords, py::tuple());
        std::string html;
        {
          py::gil_scoped_release release;
          html = gpuplan::api::report_html(session, kind, request);
        }
        return html;
      },
      py::arg("session"), py::arg("kind"), py::arg("keywords"),
      "The self-contained HTML report of kind KIND for a function's keyword arguments.");

  m.def(
      "does_not_fit", [](const py::dict& document) { return gpuplan::api::does_not_fit(to_json(document, Path{nullptr, "document"})); },
      py::arg("document"), "True when the document reports that the plan or deployment does not fit in memory.");

  // For scripts/python_bench.py: CPU seconds per api::run call timed in C++ (no Python conversion), so
  // the cost of one call from Python splits into the Python layer and the API itself.
  m.def(
      "_seconds_per_run",
      [](const gpuplan::api::Session& session, const std::string& command, const py::dict& options, int repeats) {
        if (repeats < 1) throw gpuplan::InputError("repeats", "at least 1");
        const json request = options_json(options);
        py::gil_scoped_release release;
        const std::clock_t start = std::clock();  // process CPU time, as the script's timeit timer
        for (int i = 0; i < repeats; ++i) gpuplan::api::run(session, command, request);
        return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC / repeats;
      },
      py::arg("session"), py::arg("command"), py::arg("options"), py::arg("repeats"));

  m.def(
      "commands",
      [] {
        py::list list;
        for (const auto& c : gpuplan::api::commands()) list.append(py::make_tuple(c.name, c.help));
        return list;
      },
      "Every command run() answers, as (name, one-line help) pairs.");
}
