/* SPDX-License-Identifier: MIT */
/* The program of the recordings here (record.sh): 500 requests, each parse, serialize and
 * checksum from libwork. */
void parse(void);
void serialize(void);
void checksum(void);
__attribute__((noinline)) static void handle(void) { parse(); serialize(); checksum(); }
int main(void)
{
	for (int i = 0; i < 500; i++)
		handle();
	return 0;
}
