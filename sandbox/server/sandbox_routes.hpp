// The route functions of the sandbox runtime API (docs/contracts.md §1 plus our extensions). Each
// answers one request, throwing HttpError, a path or tar error, or anything else; RequestRouter
// turns what they throw into the JSON error answer. Called on the thread serving the request.
#pragma once

#include "http_exchange.hpp"
#include "route_context.hpp"

namespace kg::sandbox {

// GET / — the readiness probe (workdir_routes.cpp).
void serve_status(RouteContext& context, Exchange& exchange);
// POST /execute — runs a command (execute_route.cpp).
void serve_execute(RouteContext& context, Exchange& exchange);
// POST /upload — one multipart file into the workdir (upload_route.cpp).
void serve_upload(RouteContext& context, Exchange& exchange);
// POST /upload-tar[?dir=][&replace=1] — a tar extracted under the workdir, optionally emptied
// first (upload_tar_route.cpp).
void serve_upload_tar(RouteContext& context, Exchange& exchange);
// POST /reset — empties the workdir (workdir_routes.cpp).
void serve_reset(RouteContext& context, Exchange& exchange);
// GET /download/<path>, /list/<path>, /exists/<path> (file_routes.cpp).
void serve_download(RouteContext& context, Exchange& exchange);
void serve_list(RouteContext& context, Exchange& exchange);
void serve_exists(RouteContext& context, Exchange& exchange);
// GET /download-tar/<path> — a folder's regular files as one tar, bounded (folder_tar_route.cpp).
void serve_download_tar(RouteContext& context, Exchange& exchange);

}  // namespace kg::sandbox
