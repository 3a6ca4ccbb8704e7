/* SPIN's Examples/Book_1991/p117.pml, unchanged below this comment, as
   shipped in the spin package: the Promela source of
   spin_dijkstra_sema.bc, run by bench/external.py.

   Copyright (c) 1989-2016 Gerard J. Holzmann. Licence: BSD-3-clause (the
   spin package's copyright file: the files in Examples/ are redistributable
   under it):

   Redistribution and use in source and binary forms, with or without
   modification, are permitted provided that the following conditions
   are met:
   1. Redistributions of source code must retain the above copyright notice,
      this list of conditions and the following disclaimer.
   2. Redistributions in binary form must reproduce the above copyright notice,
      this list of conditions and the following disclaimer in the documentation
      and/or other materials provided with the distribution.
   3. Neither the name of the copyright holder nor the names of its contributors
      may be used to endorse or promote products derived from this software
      without specific prior written permission.

   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
   AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
   IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
   ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
   LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
   CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
   SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
   INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
   CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
   ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
   POSSIBILITY OF SUCH DAMAGE.
*/
#define p	0
#define v	1

chan sema = [0] of { bit };	/* typo in original `=' was missing */

proctype dijkstra()
{	do
	:: sema!p -> sema?v
	od	
}
byte count;

proctype user()
{	sema?p;
	count = count+1;
	skip;	/* critical section */
	count = count-1;
	sema!v;
	skip	/* non-critical section */
}
proctype monitor() { assert(count == 0 || count == 1) }
init
{	atomic {
		run dijkstra(); run monitor();
		run user(); run user(); run user()
	}
}
