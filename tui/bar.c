/* tui/bar.c: op kinds as the timeline shows them (see bar.h). */
#include "tui/bar.h"

tui_kind tui_kind_of(const trace_op *op) {
    switch (op->kind) {
    case TRACE_OP_COPY:
        if (op->dir == TRACE_COPY_H2D) return TUI_KIND_H2D;
        if (op->dir == TRACE_COPY_D2H) return TUI_KIND_D2H;
        return TUI_KIND_MEMSET;
    case TRACE_OP_MEMSET: return TUI_KIND_MEMSET;
    case TRACE_OP_KERNEL: return TUI_KIND_KERNEL;
    case TRACE_OP_HOST_FN: return TUI_KIND_HOSTFN;
    case TRACE_OP_EVENT_WAIT:
    case TRACE_OP_SYNC: return TUI_KIND_SYNC;
    case TRACE_OP_HOST_ACCESS: return TUI_KIND_HOSTACC;
    case TRACE_OP_API: return TUI_KIND_API;
    case TRACE_OP_EVENT_RECORD:
    default: return TUI_KIND_EVENT;
    }
}

const char *tui_kind_name(tui_kind kind) {
    switch (kind) {
    case TUI_KIND_H2D: return "H2D";
    case TUI_KIND_KERNEL: return "kernel";
    case TUI_KIND_D2H: return "D2H";
    case TUI_KIND_MEMSET: return "memset";
    case TUI_KIND_SYNC: return "wait/sync";
    case TUI_KIND_HOSTFN: return "host fn";
    case TUI_KIND_HOSTACC: return "host access";
    case TUI_KIND_API: return "API";
    case TUI_KIND_EVENT: return "event";
    case TUI_KIND_COUNT: break;
    }
    return "?";
}

tui_color tui_kind_color(tui_kind kind) {
    switch (kind) {
    case TUI_KIND_H2D: return TUI_COLOR_H2D;
    case TUI_KIND_KERNEL: return TUI_COLOR_KERNEL;
    case TUI_KIND_D2H: return TUI_COLOR_D2H;
    case TUI_KIND_MEMSET: return TUI_COLOR_MEMSET;
    case TUI_KIND_SYNC: return TUI_COLOR_SYNC;
    case TUI_KIND_HOSTFN: return TUI_COLOR_HOSTFN;
    case TUI_KIND_HOSTACC:
    case TUI_KIND_API:
    case TUI_KIND_EVENT: return TUI_COLOR_API;
    case TUI_KIND_COUNT: break;
    }
    return TUI_COLOR_DEFAULT;
}

bool tui_kind_is_work(tui_kind kind) {
    return kind == TUI_KIND_H2D || kind == TUI_KIND_KERNEL || kind == TUI_KIND_D2H || kind == TUI_KIND_MEMSET;
}

uint32_t tui_kind_glyph(tui_kind kind, bool sparse, bool utf8) {
    sparse = sparse && tui_kind_is_work(kind);
    if (!utf8) {
        static const char ascii[TUI_KIND_COUNT] = {'>', '#', '<', '=', '~', 'f', 'h', '.', '|'};
        static const char light[TUI_KIND_COUNT] = {')', ':', '(', '-', '~', 'f', 'h', '.', '|'};
        tui_kind k = kind < TUI_KIND_COUNT ? kind : TUI_KIND_EVENT;
        return (unsigned char)(sparse ? light[k] : ascii[k]);
    }
    switch (kind) {
    case TUI_KIND_H2D: return sparse ? 0x203A : 0x2588;    /* › █ */
    case TUI_KIND_KERNEL: return sparse ? 0x2022 : 0x2593; /* • ▓ */
    case TUI_KIND_D2H: return sparse ? 0x2039 : 0x2591;    /* ‹ ░ */
    case TUI_KIND_MEMSET: return sparse ? 0x25E6 : 0x2592; /* ◦ ▒ */
    case TUI_KIND_SYNC: return 0x2500;                     /* ─ */
    case TUI_KIND_HOSTFN: return 0x25AA;                   /* ▪ */
    case TUI_KIND_HOSTACC: return 0x25AB;                  /* ▫ */
    case TUI_KIND_API: return 0x254E;                      /* ╎ */
    case TUI_KIND_EVENT:
    case TUI_KIND_COUNT: break;
    }
    return 0x2502; /* │ */
}

int tui_bar_layer(const tui_bar *bar) {
    if (bar->end_ns <= bar->start_ns) return 0;
    return bar->kind == TUI_KIND_API ? 1 : 2;
}
