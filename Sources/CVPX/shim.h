#ifndef VROOM_CVPX_SHIM_H
#define VROOM_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

// vpx_codec_enc_init / vpx_codec_dec_init are macros and vpx_codec_control_
// is variadic: Swift imports neither.
static inline vpx_codec_err_t vroom_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                                       const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, iface, cfg, flags);
}
static inline vpx_codec_err_t vroom_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                                       const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, iface, cfg, flags);
}
static inline vpx_codec_err_t vroom_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int control, int value) {
    return vpx_codec_control_(ctx, control, value);
}
// Controls that write their answer through an int pointer, e.g.
// VP8D_GET_FRAME_CORRUPTED.
static inline vpx_codec_err_t vroom_vpx_codec_control_int_ptr(vpx_codec_ctx_t *ctx, int control, int *value) {
    return vpx_codec_control_(ctx, control, value);
}
#endif
