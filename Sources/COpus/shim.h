#ifndef VROOM_COPUS_SHIM_H
#define VROOM_COPUS_SHIM_H
#include <opus.h>

// opus_encoder_ctl / opus_decoder_ctl are variadic and the OPUS_SET_* request
// macros expand to casts: Swift imports neither.
static inline int vroom_opus_set_bitrate(OpusEncoder *enc, opus_int32 bps) { return opus_encoder_ctl(enc, OPUS_SET_BITRATE(bps)); }
static inline int vroom_opus_set_inband_fec(OpusEncoder *enc, opus_int32 on) { return opus_encoder_ctl(enc, OPUS_SET_INBAND_FEC(on)); }
static inline int vroom_opus_set_packet_loss_perc(OpusEncoder *enc, opus_int32 pct) { return opus_encoder_ctl(enc, OPUS_SET_PACKET_LOSS_PERC(pct)); }
static inline int vroom_opus_set_complexity(OpusEncoder *enc, opus_int32 c) { return opus_encoder_ctl(enc, OPUS_SET_COMPLEXITY(c)); }
static inline int vroom_opus_set_dtx(OpusEncoder *enc, opus_int32 on) { return opus_encoder_ctl(enc, OPUS_SET_DTX(on)); }
static inline int vroom_opus_set_signal(OpusEncoder *enc, opus_int32 signal) { return opus_encoder_ctl(enc, OPUS_SET_SIGNAL(signal)); }
static inline int vroom_opus_get_bitrate(OpusEncoder *enc, opus_int32 *bps) { return opus_encoder_ctl(enc, OPUS_GET_BITRATE(bps)); }
static inline int vroom_opus_get_inband_fec(OpusEncoder *enc, opus_int32 *on) { return opus_encoder_ctl(enc, OPUS_GET_INBAND_FEC(on)); }
#endif
