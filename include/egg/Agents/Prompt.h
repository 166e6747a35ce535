//===- Prompt.h - The LLM agents' prompt templates --------------*- C++ -*-===//
//
// Requests are assembled from versioned template files the project owns
// (lib/Agents/Prompts/*.prompt, compiled in; a directory given with
// --egg-llm-prompts replaces them without a rebuild). A template has a
// `version: N` line, comment lines, and `=== system` / `=== user` parts
// with {{name}} placeholders; a placeholder the agent does not fill is an
// error, never silently empty text.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_PROMPT_H
#define EGG_AGENTS_PROMPT_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::egg {

struct PromptTemplate {
  std::string name;
  int version = 0;
  std::string system, user;
};

/// Parses the text of template `name`; on failure says why in `error`.
std::optional<PromptTemplate> parsePromptTemplate(const std::string &name,
                                                  const std::string &text,
                                                  std::string &error);

/// The names of the compiled-in templates.
std::vector<std::string> listPromptTemplates();

/// Template `name`: `dir`/`name`.prompt when `dir` is not empty, else the
/// compiled-in one.
std::optional<PromptTemplate> loadPromptTemplate(const std::string &name,
                                                 const std::string &dir,
                                                 std::string &error);

/// `text` with every {{key}} replaced by its value; fails on a key not in
/// `values` or an unclosed placeholder.
std::optional<std::string>
renderPrompt(const std::string &text,
             const std::map<std::string, std::string> &values,
             std::string &error);

} // namespace mlir::egg

#endif // EGG_AGENTS_PROMPT_H
