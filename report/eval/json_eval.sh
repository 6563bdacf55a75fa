#!/usr/bin/env bash
# report/eval/json_eval.sh JOURNAL - the evidence behind the report's choice
# of JSON library (docs/report.md): for each of jansson, json-c, cJSON, yajl
# (tree) and yajl (callbacks), parse JOURNAL line by line and say how many
# lines it rejected, what it made of a non-UTF-8 argv (\udcXX), and its
# time and peak memory. Needs the four -dev packages and /usr/bin/time.
#
#   python3 tests/integration/report_gen.py 1250000 2 >/tmp/j100.jsonl  # ~100 MB
#   report/eval/json_eval.sh /tmp/j100.jsonl
set -eu
j=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# a line as corral writes it for argv bytes 61 ff 62 c3 ("a\xffb\xc3")
printf '%s\n' '{"event":"exec","t":1,"pid":2,"argv":["a\udcffb\udcc3"]}' >"$d/bytes.jsonl"
cat >"$d/ev_jansson.c" <<'C'
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc,char**argv){ FILE*f=fopen(argv[1],"r"); char*l=NULL; size_t c=0; ssize_t n; long lines=0,bad=0; int show=argc>2;
 while((n=getline(&l,&c,f))>0){ json_error_t e; json_t*j=json_loadb(l,n,JSON_DECODE_ANY|JSON_ALLOW_NUL,&e); lines++;
  if(!j){ if(bad++<2) fprintf(stderr,"line %ld: %s\n",lines,e.text); continue;}
  if(show){ json_t*a=json_object_get(j,"argv"); if(a){ for(size_t i=0;i<json_array_size(a);i++){ const char*s=json_string_value(json_array_get(a,i)); size_t L=json_string_length(json_array_get(a,i)); for(size_t k=0;k<L;k++) printf("%02x",(unsigned char)s[k]); printf(" ");} printf("\n");}}
  json_decref(j);} printf("jansson: %ld lines, %ld rejected\n",lines,bad); return 0;}
C
cat >"$d/ev_jsonc.c" <<'C'
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
int main(int argc,char**argv){ FILE*f=fopen(argv[1],"r"); char*l=NULL; size_t c=0; ssize_t n; long lines=0,bad=0; int show=argc>2;
 json_tokener*tk=json_tokener_new();
 while((n=getline(&l,&c,f))>0){ json_tokener_reset(tk); json_object*j=json_tokener_parse_ex(tk,l,n); lines++;
  if(!j){ if(bad++<2) fprintf(stderr,"line %ld: %s\n",lines,json_tokener_error_desc(json_tokener_get_error(tk))); continue;}
  if(show){ json_object*a; if(json_object_object_get_ex(j,"argv",&a)){ for(size_t i=0;i<json_object_array_length(a);i++){ json_object*s=json_object_array_get_idx(a,i); const char*p=json_object_get_string(s); int L=json_object_get_string_len(s); for(int k=0;k<L;k++) printf("%02x",(unsigned char)p[k]); printf(" ");} printf("\n");}}
  json_object_put(j);} printf("json-c: %ld lines, %ld rejected\n",lines,bad); return 0;}
C
cat >"$d/ev_cjson.c" <<'C'
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
int main(int argc,char**argv){ FILE*f=fopen(argv[1],"r"); char*l=NULL; size_t c=0; ssize_t n; long lines=0,bad=0; int show=argc>2;
 while((n=getline(&l,&c,f))>0){ cJSON*j=cJSON_ParseWithLength(l,n); lines++;
  if(!j){ if(bad++<2) fprintf(stderr,"line %ld: error near '%.20s'\n",lines,cJSON_GetErrorPtr()); continue;}
  if(show){ cJSON*a=cJSON_GetObjectItem(j,"argv"); cJSON*s; if(a) { cJSON_ArrayForEach(s,a){ for(const char*p=s->valuestring;*p;p++) printf("%02x",(unsigned char)*p); printf(" ");} printf("\n");}}
  cJSON_Delete(j);} printf("cJSON: %ld lines, %ld rejected\n",lines,bad); return 0;}
C
cat >"$d/ev_yajl.c" <<'C'
#include <yajl/yajl_tree.h>
#include <stdio.h>
#include <string.h>
int main(int argc,char**argv){ FILE*f=fopen(argv[1],"r"); char*l=NULL; size_t c=0; ssize_t n; long lines=0,bad=0; int show=argc>2; char eb[256];
 while((n=getline(&l,&c,f))>0){ yajl_val j=yajl_tree_parse(l,eb,sizeof eb); lines++;
  if(!j){ if(bad++<2) fprintf(stderr,"line %ld: %s\n",lines,eb); continue;}
  if(show){ const char*path[]={"argv",NULL}; yajl_val a=yajl_tree_get(j,path,yajl_t_array); if(a){ for(size_t i=0;i<a->u.array.len;i++){ const char*p=YAJL_GET_STRING(a->u.array.values[i]); for(;*p;p++) printf("%02x",(unsigned char)*p); printf(" ");} printf("\n");}}
  yajl_tree_free(j);} printf("yajl: %ld lines, %ld rejected\n",lines,bad); return 0;}
C
cat >"$d/ev_yajlcb.c" <<'C'
#include <yajl/yajl_parse.h>
#include <stdio.h>
#include <string.h>
static long nstr, nnum;
static int cb_str(void*c,const unsigned char*s,size_t l){nstr++;return 1;}
static int cb_num(void*c,const char*s,size_t l){nnum++;return 1;}
static int cb_key(void*c,const unsigned char*s,size_t l){return 1;}
static int cb_ok(void*c){return 1;}
static int cb_bool(void*c,int b){return 1;}
static yajl_callbacks cbs={cb_ok,cb_bool,NULL,NULL,cb_num,cb_str,cb_ok,cb_key,cb_ok,cb_ok,cb_ok};
int main(int argc,char**argv){ FILE*f=fopen(argv[1],"r"); char*l=NULL; size_t c=0; ssize_t n; long lines=0,bad=0;
 while((n=getline(&l,&c,f))>0){ yajl_handle h=yajl_alloc(&cbs,NULL,NULL); lines++;
  if(yajl_parse(h,(unsigned char*)l,n)!=yajl_status_ok||yajl_complete_parse(h)!=yajl_status_ok) bad++;
  yajl_free(h);} printf("yajl-cb: %ld lines, %ld rejected %ld str\n",lines,bad,nstr); return 0;}
C
cc -O2 -o "$d/ev_jansson" "$d/ev_jansson.c" -ljansson
cc -O2 -o "$d/ev_jsonc" "$d/ev_jsonc.c" -ljson-c
cc -O2 -o "$d/ev_cjson" "$d/ev_cjson.c" -lcjson
cc -O2 -o "$d/ev_yajl" "$d/ev_yajl.c" -lyajl
cc -O2 -o "$d/ev_yajlcb" "$d/ev_yajlcb.c" -lyajl
echo "argv bytes 61 ff 62 c3 as each library decodes \"a\\udcffb\\udcc3\" (hex):"
for p in jansson jsonc cjson yajl; do
	printf '  %-8s ' "$p"
	"$d/ev_$p" "$d/bytes.jsonl" show 2>&1 | head -n 1
done
echo "$j ($(wc -c <"$j") bytes, $(wc -l <"$j") lines):"
for p in jansson jsonc cjson yajl yajlcb; do
	/usr/bin/time -f "  $p: %e s wall, %U s user, %M KB max RSS" "$d/ev_$p" "$j" 2>&1 | grep -v '^line'
done
