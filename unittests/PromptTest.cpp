//===- PromptTest.cpp - The LLM agents' prompt templates ------------------===//

#include "egg/Agents/Prompt.h"

#include "gtest/gtest.h"

using namespace mlir::egg;

namespace {
/// Every name each compiled-in template may use, as LlmAgent fills them.
const std::map<std::string, std::string> kFilled = {
    {"principles", "P"},   {"kernel", "K"}, {"legal", "L"},
    {"proposal", "X"},     {"stage1", "S"}, {"rules", "R"},
    {"measurements", "M"}, {"reason", "E"}, {"field", "F"},
    {"answer", "A"}};

TEST(PromptTest, CompiledInTemplatesParseAndRender) {
  std::vector<std::string> names = listPromptTemplates();
  EXPECT_EQ(names.size(), 3u);
  for (const std::string &name : names) {
    std::string error;
    std::optional<PromptTemplate> t = loadPromptTemplate(name, "", error);
    ASSERT_TRUE(t) << name << ": " << error;
    EXPECT_GE(t->version, 1) << name;
    EXPECT_FALSE(t->user.empty()) << name;
    std::optional<std::string> user = renderPrompt(t->user, kFilled, error);
    ASSERT_TRUE(user) << name << ": " << error;
    EXPECT_EQ(user->find("{{"), std::string::npos) << name;
    ASSERT_TRUE(renderPrompt(t->system, kFilled, error))
        << name << ": " << error;
  }
}

TEST(PromptTest, StageTemplatesCarryTheirParts) {
  std::string error;
  std::optional<PromptTemplate> t = loadPromptTemplate("tuning", "", error);
  ASSERT_TRUE(t) << error;
  std::string user = *renderPrompt(t->user, kFilled, error);
  // The kernel, stage 1's decision, the rules, the expert's proposal and
  // the answer's form.
  for (const char *part : {"K\nS\nR\n", "proposes: X\nA"})
    EXPECT_NE(user.find(part), std::string::npos) << part;
  EXPECT_NE(renderPrompt(t->system, kFilled, error)->find("P"),
            std::string::npos);
}

TEST(PromptTest, RenderReplacesAndRejects) {
  std::string error;
  EXPECT_EQ(*renderPrompt("a {{ x }} b {{y}}", {{"x", "1"}, {"y", "2"}}, error),
            "a 1 b 2");
  EXPECT_FALSE(renderPrompt("a {{z}}", {{"x", "1"}}, error));
  EXPECT_NE(error.find("'{{z}}'"), std::string::npos) << error;
  EXPECT_FALSE(renderPrompt("a {{x", {{"x", "1"}}, error));
  EXPECT_NE(error.find("unclosed"), std::string::npos) << error;
}

TEST(PromptTest, ParseRejectsMalformedTemplates) {
  std::string error;
  EXPECT_FALSE(parsePromptTemplate("t", "=== user\nhi\n", error));
  EXPECT_NE(error.find("version"), std::string::npos) << error;
  EXPECT_FALSE(
      parsePromptTemplate("t", "version: 1\nstray\n=== user\nhi", error));
  EXPECT_NE(error.find("before the first"), std::string::npos) << error;
  EXPECT_FALSE(
      parsePromptTemplate("t", "version: 1\n=== assistant\nhi", error));
  EXPECT_NE(error.find("unknown part"), std::string::npos) << error;
  EXPECT_FALSE(parsePromptTemplate("t", "version: 1\n=== system\nhi", error));
  EXPECT_NE(error.find("no '=== user'"), std::string::npos) << error;
  std::optional<PromptTemplate> t = parsePromptTemplate(
      "t", "version: 2\n# note\n=== system\nS\n=== user\nU\n\n", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->version, 2);
  EXPECT_EQ(t->system, "S");
  EXPECT_EQ(t->user, "U");
}

TEST(PromptTest, MissingDirectoryIsAnError) {
  std::string error;
  EXPECT_FALSE(loadPromptTemplate("tuning", "/nonexistent-egg-prompts", error));
  EXPECT_NE(error.find("cannot read prompt"), std::string::npos) << error;
}
} // namespace
