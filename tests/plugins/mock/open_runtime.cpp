// A valid runtime plugin that brings what the daemon has no table of: a runtime name of its own
// ("echo", not its plugin name) and config keys of its own. The tests use it to show that the
// set of runtimes and plugin keys is open: whatever a loaded descriptor declares is offered.
#include "fixed_runtime.hpp"

namespace {

constexpr const char* kRuntimeNames[] = {"echo"};
constexpr const char* kVoices[] = {"quiet", "loud"};
constexpr kg::plugin::PluginConfigKey kConfigKeys[] = {
    {.name = "greeting", .type = kg::plugin::ConfigKeyType::text, .default_text = "hello",
     .help = "What the echo runtime says first."},
    {.name = "voice", .type = kg::plugin::ConfigKeyType::choice, .default_text = "quiet",
     .help = "How loud it says it.", .choices = kVoices, .choice_count = 2},
    {.name = "repeat", .type = kg::plugin::ConfigKeyType::integer, .default_text = "1",
     .help = "How often.", .min = 1, .max = 3},
};

const kg::plugin::PluginDescriptor descriptor{
    .abi_version = kg::plugin::kAbiVersion,
    .kind = kg::plugin::PluginKind::runtime,
    .name = "open-runtime",
    .version = "0.0.1",
    .description = "Mock runtime offering the runtime echo",
    .create_runtime = &kg::mock::create_available_runtime,
    .create_credentials = nullptr,
    .runtime_names = kRuntimeNames,
    .runtime_name_count = 1,
    .config_keys = kConfigKeys,
    .config_key_count = 3};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
