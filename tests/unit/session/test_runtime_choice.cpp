#include <doctest/doctest.h>

#include "runtime_choice.hpp"
#include "session_errors.hpp"

using kg::plugin::ExecuteResult;
using kg::plugin::Handoff;
using kg::session::after_yaegi;
using kg::session::plan_runtime;

TEST_CASE("the call's runtime wins over the session's, which wins over the default") {
  CHECK(plan_runtime("yaegi", "compiled-go", "auto").requested == "yaegi");
  CHECK(plan_runtime("", "yaegi", "compiled-go").requested == "yaegi");
  CHECK(plan_runtime("", "", "compiled-go").requested == "compiled-go");
  const auto plain = plan_runtime("compiled-go", "", "auto");
  CHECK(plain.first == "compiled-go");
  CHECK_FALSE(plain.auto_select);
}

TEST_CASE("auto runs the yaegi plugin first, with auto_select") {
  const auto plan = plan_runtime("", "", "auto");
  CHECK(plan.requested == "auto");
  CHECK(plan.first == "yaegi");
  CHECK(plan.auto_select);
}

TEST_CASE("a runtime this build does not have is the caller's error, with the list") {
  CHECK_THROWS_WITH_AS(plan_runtime("gopherjs", "", "compiled-go"),
                       "runtime \"gopherjs\" is not available; available runtimes: compiled-go, "
                       "yaegi, auto",
                       kg::session::UnknownRuntimeError);
}

TEST_CASE("after Yaegi: a run is final and keeps its reason") {
  ExecuteResult ran;
  ran.runtime_reason = "standard library only, no construct known to diverge";
  const auto verdict = after_yaegi(ran, false);
  CHECK_FALSE(verdict.run_compiled);
  CHECK(verdict.reason == "standard library only, no construct known to diverge");
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: declined goes to compiled-go with the decline reason, no warning") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.runtime_reason = "imports github.com/google/uuid, which Yaegi's symbol tables lack";
  const auto verdict = after_yaegi(declined, false);
  CHECK(verdict.run_compiled);
  CHECK(verdict.reason == "imports github.com/google/uuid, which Yaegi's symbol tables lack");
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: a limitation goes to compiled-go and the result warns") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.runtime_reason = "reflect: Call of an interpreted method";
  const auto verdict = after_yaegi(failed, false);
  CHECK(verdict.run_compiled);
  CHECK(verdict.reason ==
        "Yaegi could not run it (reflect: Call of an interpreted method), so compiled-go ran it");
  REQUIRE(verdict.warning);
  CHECK(*verdict.warning ==
        "Yaegi failed on this program where compiled Go does not (reflect: Call of an "
        "interpreted method); it was run again with compiled-go");
}

TEST_CASE("after Yaegi: a limitation of a credentialed run is not run again") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.program_started = true;
  failed.runtime_reason = "reflect: Call of an interpreted method";
  const auto verdict = after_yaegi(failed, true);
  CHECK_FALSE(verdict.run_compiled);
  CHECK(verdict.reason == "Yaegi could not run it (reflect: Call of an interpreted method)");
  REQUIRE(verdict.warning);
  CHECK(verdict.warning->find("not run again with compiled-go because it ran with Google "
                              "credentials") != std::string::npos);
}

TEST_CASE("after Yaegi: a decline goes to compiled-go even with credentials (nothing ran)") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.runtime_reason = "method value s.Len at main.go:12";
  const auto verdict = after_yaegi(declined, true);
  CHECK(verdict.run_compiled);
  CHECK_FALSE(verdict.warning);
}

TEST_CASE("after Yaegi: a credentialed run that failed before the program started goes compiled") {
  ExecuteResult failed;
  failed.handoff = Handoff::limitation;
  failed.program_started = false;  // the runner's own failure, before `started`
  failed.runtime_reason = "the interpreter gave main as a int";
  CHECK(after_yaegi(failed, true).run_compiled);
}

TEST_CASE("after Yaegi: a decline once the program started is never run compiled") {
  ExecuteResult declined;
  declined.handoff = Handoff::declined;
  declined.program_started = true;
  declined.runtime_reason = "forged by the program";
  for (const bool credentials : {false, true}) {
    const auto verdict = after_yaegi(declined, credentials);
    CHECK_FALSE(verdict.run_compiled);
    CHECK(verdict.reason.find("forged") == std::string::npos);
    CHECK(verdict.warning);
  }
}
