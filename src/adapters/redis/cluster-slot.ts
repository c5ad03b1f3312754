/** The number of hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16_384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the checksum Redis Cluster hashes keys with. */
const CRC16_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  return crc & 0xffff;
});

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/**
 * The hash slot of `key` on a Redis Cluster, as the server computes it (cluster specification, "Keys
 * distribution model"): CRC16 of the key's bytes modulo 16,384, or of its hash tag alone, the bytes
 * between the first `{` and the first `}` after it when there is at least one.
 */
export function clusterSlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  let from = 0;
  let to = bytes.length;
  const open = bytes.indexOf(OPEN);
  if (open !== -1) {
    const close = bytes.indexOf(CLOSE, open + 1);
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i += 1)
    crc = ((crc << 8) ^ (CRC16_TABLE[((crc >> 8) ^ (bytes[i] as number)) & 0xff] as number)) & 0xffff;
  return crc % CLUSTER_SLOTS;
}
