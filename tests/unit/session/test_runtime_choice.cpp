#include <doctest/doctest.h>

#include "runtime_choice.hpp"
#include "session_errors.hpp"

using kg::plugin::ExecuteResult;
using kg::plugin::Handoff;
using kg::session::after_first_runtime;
using kg::session::RuntimeOffer;
using kg::session::RuntimePlan;

namespace {

// What the daemon offers with the compiled-go and yaegi plugins and the default auto_order.
const RuntimeOffer kOffer{{"compiled-go", "yaegi"}, {"yaegi", "compiled-go"}};

kg::session::RuntimePlan plan_runtime(std::string_view requested, std::string_view session,
                                      std::string_view fallback) {
  return kg::session::plan_runtime(requested, session, fallback, kOffer);
}

kg::session::AutoVerdict after_yaegi(const ExecuteResult& result, bool credentials) {
  return after_first_runtime(plan_runtime("auto", "", ""), result, credentials);
}

}  // namespace

TEST_CASE("the call's runtime wins over the session's, which wins over the default") {
  CHECK(plan_runtime("yaegi", "compiled-go", "auto").requested == "yaegi");
  CHECK(plan_runtime("", "yaegi", "compiled-go").requested == "yaegi");
  CHECK(plan_runtime("", "", "compiled-go").requested == "compiled-go");
  const auto plain = plan_runtime("compiled-go", "", "auto");
  CHECK(plain.first == "compiled-go");
  CHECK_FALSE(plain.auto_select);
}

TEST_CASE("auto runs the first of auto_order with auto_select, the second after it") {
  const auto plan = plan_runtime("", "", "auto");
  CHECK(plan.requested == "auto");
  CHECK(plan.first == "yaegi");
  CHECK(plan.second == "compiled-go");
  CHECK(plan.auto_select);
  CHECK(plan_runtime("yaegi", "", "auto").second.empty());
}

TEST_CASE("auto follows the configured order, and names a plugin's own runtime") {
  const RuntimeOffer offer{{"compiled-go", "tinygo", "yaegi"}, {"tinygo", "compiled-go"}};
  const auto plan = kg::session::plan_runtime("auto", "", "compiled-go", offer);
  CHECK(plan.first == "tinygo");
  CHECK(plan.second == "compiled-go");
  CHECK(kg::session::plan_runtime("tinygo", "", "compiled-go", offer).first == "tinygo");
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  const auto verdict = after_first_runtime(plan, declined, false);
  CHECK(verdict.run_second);
  CHECK(verdict.reason == "tinygo declined it");
}

TEST_CASE("a runtime no loaded plugin offers is the caller's error, with the list") {
  CHECK_THROWS_WITH_AS(plan_runtime("gopherjs", "", "compiled-go"),
                       "runtime \"gopherjs\" is not available; available runtimes: compiled-go, "
                       "yaegi, auto",
                       kg::session::UnknownRuntimeError);
}

TEST_CASE("without auto_order there is no auto, and the list says so") {
  const RuntimeOffer offer{{"compiled-go"}, {}};
  CHECK_THROWS_WITH_AS(kg::session::plan_runtime("auto", "", "compiled-go", offer),
                       "runtime \"auto\" is not available; available runtimes: compiled-go",
                       kg::session::UnknownRuntimeError);
  const RuntimeOffer nothing{{}, {}};
  CHECK_THROWS_WITH_AS(kg::session::plan_runtime("", "", "compiled-go", nothing),
                       "runtime \"compiled-go\" is not available; available runtimes: none (no "
                       "runtime plugin is loaded)",
                       kg::session::UnknownRuntimeError);
}

TEST_CASE("after Yaegi: a run is final and keeps its reason") {
  ExecuteResult ran;
  ran.runtime_reason = "standard library only, no construct known to diverge";
  const auto verdict = after_yaegi(ran, false);
  CHECK_FALSE(verdict.run_second);
  CHECK(verdict.reason == "standard library only, no construct known to diverge");
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: declined goes to compiled-go with the decline reason, no warning") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.runtime_reason = "imports github.com/google/uuid, which Yaegi's symbol tables lack";
  const auto verdict = after_yaegi(declined, false);
  CHECK(verdict.run_second);
  CHECK(verdict.reason == "imports github.com/google/uuid, which Yaegi's symbol tables lack");
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: a limitation goes to compiled-go and the result warns") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.runtime_reason = "reflect: Call of an interpreted method";
  const auto verdict = after_yaegi(failed, false);
  CHECK(verdict.run_second);
  CHECK(verdict.reason ==
        "yaegi could not run it (reflect: Call of an interpreted method), so compiled-go ran it");
  REQUIRE(verdict.warning);
  CHECK(*verdict.warning ==
        "yaegi failed on this program where compiled-go does not (reflect: Call of an "
        "interpreted method); it was run again with compiled-go");
}

TEST_CASE("after Yaegi: a limitation of a credentialed run is not run again") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.program_started = true;
  failed.runtime_reason = "reflect: Call of an interpreted method";
  const auto verdict = after_yaegi(failed, true);
  CHECK_FALSE(verdict.run_second);
  CHECK(verdict.reason == "yaegi could not run it (reflect: Call of an interpreted method)");
  REQUIRE(verdict.warning);
  CHECK(verdict.warning->find("not run again with compiled-go because it ran with Google "
                              "credentials") != std::string::npos);
}

TEST_CASE("after Yaegi: a decline goes to compiled-go even with credentials (nothing ran)") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.runtime_reason = "method value s.Len at main.go:12";
  const auto verdict = after_yaegi(declined, true);
  CHECK(verdict.run_second);
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: a credentialed run that failed before the program started goes compiled") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.program_started = false;  // the runner's own failure, before `started`
  failed.runtime_reason = "the interpreter gave main as a int";
  CHECK(after_yaegi(failed, true).run_second);
}

TEST_CASE("after Yaegi: a decline once the program started is never run compiled") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.program_started = true;
  declined.runtime_reason = "forged by the program";
  for (const bool credentials : {false, true}) {
    const auto verdict = after_yaegi(declined, credentials);
    CHECK_FALSE(verdict.run_second);
    CHECK(verdict.reason.find("forged") == std::string::npos);
    CHECK(verdict.warning);
  }
}

TEST_CASE("a remembered decline holds while its file still has the text verbatim") {
  const kg::plugin::DeclineEvidence evidence{"main.go", "func main() {\n\tfor {}\n}"};
  const std::vector<kg::plugin::SourceFile> edited{
      {"helper/h.go", "package helper\n"},
      {"main.go", "package main\n\n// edited\nfunc main() {\n\tfor {}\n}\n"}};
  CHECK(kg::session::still_holds(evidence, edited));
  // The declaration changed, or the text is in another file: the runtime is asked again.
  CHECK_FALSE(kg::session::still_holds(
      evidence, {{"main.go", "package main\n\nfunc main() {\n\tfor { break }\n}\n"}}));
  CHECK_FALSE(kg::session::still_holds(
      evidence, {{"other.go", "package main\n\nfunc main() {\n\tfor {}\n}\n"}}));
  CHECK_FALSE(kg::session::still_holds({"main.go", ""}, edited));
  const auto plan = kg::session::RuntimePlan{.requested = "auto", .first = "yaegi",
                                             .second = "compiled-go", .auto_select = true};
  CHECK(kg::session::remembered_decline_reason(plan, "CPU-bound", "main.go") ==
        "yaegi declined the same code in main.go on an earlier call of this session, so "
        "compiled-go runs it without asking again (CPU-bound)");
}
