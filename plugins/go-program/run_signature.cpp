#include "run_signature.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace kg::go_program {
namespace {

using Tokens = std::vector<std::string>;

bool is_identifier(const std::string& token) {
  const auto c = static_cast<unsigned char>(token.empty() ? '\0' : token[0]);
  return std::isalpha(c) || c == '_' || c >= 0x80;
}

// Go's predeclared types other than any and error: never an alias of what the contract names.
bool is_predeclared_type(const std::string& name) {
  static constexpr std::array<std::string_view, 20> kTypes = {
      "bool",   "string", "int",     "int8",      "int16",      "int32",   "int64",
      "uint",   "uint8",  "uint16",  "uint32",    "uint64",     "uintptr", "float32",
      "float64", "complex64", "complex128", "byte", "rune", "comparable"};
  return std::find(kTypes.begin(), kTypes.end(), name) != kTypes.end();
}

// Where the bracket opened at `open` closes; tokens.size() when it does not.
std::size_t closing(const Tokens& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") {
      if (--depth == 0) return i;
    }
  }
  return tokens.size();
}

// The elements of a parameter or result list (inside its parentheses), split at top-level
// commas; a trailing comma adds none.
std::vector<Tokens> split_list(const Tokens& tokens, std::size_t from, std::size_t to) {
  std::vector<Tokens> elements(1);
  int depth = 0;
  for (std::size_t i = from; i < to; ++i) {
    const std::string& t = tokens[i];
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") --depth;
    if (t == "," && depth == 0) {
      elements.emplace_back();
      continue;
    }
    elements.back().push_back(t);
  }
  if (elements.back().empty()) elements.pop_back();
  return elements;
}

// Whether an element starts with a name followed by its type ("ctx context.Context",
// "v []int", "args ...string") rather than being a type alone ("context.Context", "T[int]").
bool is_named(const Tokens& element) {
  if (element.size() < 2 || !is_identifier(element[0])) return false;
  // Keywords that start a type: `interface{}`, `map[K]V`, `chan T`, `func()`, `struct{}`.
  static constexpr std::array<std::string_view, 5> kTypeKeywords = {"interface", "map", "chan",
                                                                    "func", "struct"};
  if (std::find(kTypeKeywords.begin(), kTypeKeywords.end(), element[0]) != kTypeKeywords.end()) {
    return false;
  }
  if (element[1] == ".") return element.size() > 2 && element[2] == ".";  // name ...T
  if (element[1] == "[") return element.size() > 2 && element[2] == "]";  // name []T
  return true;
}

// The types of a list, one per parameter or result: with names, a name without a type
// shares the next element's type ("a, b int" is two ints).
std::vector<Tokens> list_types(const std::vector<Tokens>& elements) {
  const bool named = std::any_of(elements.begin(), elements.end(), is_named);
  std::vector<Tokens> types;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!named) {
      types.push_back(elements[i]);
      continue;
    }
    if (is_named(elements[i])) {
      types.emplace_back(elements[i].begin() + 1, elements[i].end());
      continue;
    }
    // A name grouped with the next typed element.
    std::size_t typed = i;
    while (typed < elements.size() && !is_named(elements[typed])) ++typed;
    types.push_back(typed < elements.size()
                        ? Tokens(elements[typed].begin() + 1, elements[typed].end())
                        : Tokens{});
  }
  return types;
}

enum class Shape { empty_interface, error, named, qualified, surely_other };

// What a type's tokens can be: `any` or `interface{}`, `error`, a bare name (maybe an alias),
// a qualified name (pkg.Name, maybe an alias), or surely something else.
Shape shape_of(const Tokens& type, std::string* qualified_name = nullptr) {
  if (type == Tokens{"any"} || type == Tokens{"interface", "{", "}"}) return Shape::empty_interface;
  if (type == Tokens{"error"}) return Shape::error;
  if (type.size() == 1 && is_identifier(type[0])) {
    return is_predeclared_type(type[0]) ? Shape::surely_other : Shape::named;
  }
  if (type.size() == 3 && is_identifier(type[0]) && type[1] == "." && is_identifier(type[2])) {
    if (qualified_name != nullptr) *qualified_name = type[2];
    return Shape::qualified;
  }
  return Shape::surely_other;
}

}  // namespace

std::optional<std::string> run_signature_problem(const Tokens& tokens) {
  if (tokens.empty() || tokens[0] == "[") {
    return tokens.empty() ? "it has no parameter list" : "it has type parameters";
  }
  if (tokens[0] != "(") return "it has no parameter list";
  const std::size_t params_end = closing(tokens, 0);
  if (params_end == tokens.size()) return "its parameter list does not end";
  const auto params = list_types(split_list(tokens, 1, params_end));
  if (params.size() != 1) {
    return "it takes " + std::to_string(params.size()) + " parameters, not one context.Context";
  }
  std::string param_name;
  const Shape param = shape_of(params[0], &param_name);
  if (param == Shape::surely_other || param == Shape::empty_interface || param == Shape::error ||
      (param == Shape::qualified && param_name != "Context")) {
    return "its parameter is not a context.Context";
  }
  const std::size_t results_start = params_end + 1;
  if (results_start == tokens.size()) return "it returns nothing";
  if (tokens[results_start] != "(") return "it returns one value, not two (a value and an error)";
  const std::size_t results_end = closing(tokens, results_start);
  if (results_end + 1 < tokens.size()) return std::nullopt;  // not a signature this reads
  const auto results = list_types(split_list(tokens, results_start + 1, results_end));
  if (results.size() != 2) {
    return "it returns " + std::to_string(results.size()) +
           (results.size() == 1 ? " value" : " values") + ", not two (a value and an error)";
  }
  const Shape value = shape_of(results[0]);
  if (value == Shape::surely_other || value == Shape::error) {
    return "its first result is not any";
  }
  const Shape err = shape_of(results[1]);
  if (err == Shape::surely_other || err == Shape::empty_interface) {
    return "its second result is not error";
  }
  return std::nullopt;
}

}  // namespace kg::go_program
