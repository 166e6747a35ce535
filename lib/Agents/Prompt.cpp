//===- Prompt.cpp - The LLM agents' prompt templates ----------------------===//

#include "egg/Agents/Prompt.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <utility>

using namespace mlir::egg;

#include "Prompts.inc"

std::optional<PromptTemplate>
mlir::egg::parsePromptTemplate(const std::string &name, const std::string &text,
                               std::string &error) {
  PromptTemplate result;
  result.name = name;
  llvm::StringRef rest = text;
  std::string *part = nullptr;
  bool versioned = false;
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    if (line.consume_front("=== ")) {
      line = line.trim();
      if (line == "system")
        part = &result.system;
      else if (line == "user")
        part = &result.user;
      else {
        error = "prompt '" + name + "': unknown part '" + line.str() +
                "' (expected system or user)";
        return std::nullopt;
      }
      continue;
    }
    if (part) {
      *part += line.str() + "\n";
    } else if (line.consume_front("version:")) {
      versioned =
          !line.trim().getAsInteger(10, result.version) && result.version > 0;
    } else if (!line.trim().empty() && !line.starts_with("#")) {
      error = "prompt '" + name + "': text before the first '=== ' part";
      return std::nullopt;
    }
  }
  if (!versioned) {
    error = "prompt '" + name + "': no 'version: N' line";
    return std::nullopt;
  }
  if (result.user.empty()) {
    error = "prompt '" + name + "': no '=== user' part";
    return std::nullopt;
  }
  // Parts end where the file's text ends, without the trailing newlines.
  for (std::string *p : {&result.system, &result.user})
    *p = llvm::StringRef(*p).rtrim().str();
  return result;
}

std::vector<std::string> mlir::egg::listPromptTemplates() {
  std::vector<std::string> names;
  for (const auto &entry : kPromptTemplates)
    names.push_back(entry.first);
  return names;
}

std::optional<PromptTemplate>
mlir::egg::loadPromptTemplate(const std::string &name, const std::string &dir,
                              std::string &error) {
  if (!dir.empty()) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name + ".prompt");
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!file) {
      error = "cannot read prompt '" + std::string(path) +
              "': " + file.getError().message();
      return std::nullopt;
    }
    return parsePromptTemplate(name, (*file)->getBuffer().str(), error);
  }
  for (const auto &entry : kPromptTemplates)
    if (name == entry.first)
      return parsePromptTemplate(name, entry.second, error);
  error = "no prompt template '" + name + "'";
  return std::nullopt;
}

std::optional<std::string>
mlir::egg::renderPrompt(const std::string &text,
                        const std::map<std::string, std::string> &values,
                        std::string &error) {
  std::string out;
  llvm::StringRef rest = text;
  while (true) {
    size_t open = rest.find("{{");
    out += rest.take_front(open).str();
    if (open == llvm::StringRef::npos)
      return out;
    rest = rest.drop_front(open + 2);
    size_t close = rest.find("}}");
    if (close == llvm::StringRef::npos) {
      error = "unclosed '{{' in a prompt template";
      return std::nullopt;
    }
    std::string key = rest.take_front(close).trim().str();
    auto it = values.find(key);
    if (it == values.end()) {
      error = "the prompt template names '{{" + key +
              "}}', which the agent does not fill";
      return std::nullopt;
    }
    out += it->second;
    rest = rest.drop_front(close + 2);
  }
}
